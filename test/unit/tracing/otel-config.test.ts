import { describe, expect, it } from 'vitest';
import {
  CloudWatchTracer,
  createTracer,
  MultiTracer,
  OtelTracer,
  otlpTargets,
  parseOtlpHeaders,
  TracingConfigInvalid,
  toOtelAttributes,
  tracingConfigFromEnv,
} from '../../../lib/tracing/index.js';

describe('otel presets from the environment', () => {
  it('reads a comma list of backends, cloudwatch next to otel presets', () => {
    // Act
    const config = tracingConfigFromEnv({ AGENT_KERNEL_TRACING: 'cloudwatch, Langfuse,otlp' });

    // Assess
    expect(config.backend).toBe('cloudwatch');
    expect(config.otel).toEqual(['otlp', 'langfuse']);
  });

  it.each(['cloudwatch,datadog', 'none,langfuse'])('refuses AGENT_KERNEL_TRACING=%s', (value) => {
    // Act
    const read = () => tracingConfigFromEnv({ AGENT_KERNEL_TRACING: value });

    // Assess
    expect(read).toThrow(TracingConfigInvalid);
    expect(read).toThrow('AGENT_KERNEL_TRACING');
  });

  it('gives each preset its URL and auth header', () => {
    // Act
    const targets = otlpTargets(['otlp', 'langfuse', 'logfire', 'openllmetry'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%3Db,x-team=core',
      LANGFUSE_PUBLIC_KEY: 'pk-lf-1',
      LANGFUSE_SECRET_KEY: 'sk-lf-2',
      LANGFUSE_BASE_URL: 'https://eu.langfuse.example',
      LOGFIRE_TOKEN: 'pylf_v1_eu_abc',
      TRACELOOP_API_KEY: 'tl-key',
    });

    // Assess
    expect(targets).toEqual([
      {
        preset: 'otlp',
        url: 'http://collector:4318/v1/traces',
        headers: { 'x-api-key': 'a=b', 'x-team': 'core' },
      },
      {
        preset: 'langfuse',
        url: 'https://eu.langfuse.example/api/public/otel/v1/traces',
        headers: { Authorization: `Basic ${Buffer.from('pk-lf-1:sk-lf-2').toString('base64')}` },
      },
      {
        preset: 'logfire',
        url: 'https://logfire-eu.pydantic.dev/v1/traces',
        headers: { Authorization: 'pylf_v1_eu_abc' },
      },
      {
        preset: 'openllmetry',
        url: 'https://api.traceloop.com/v1/traces',
        headers: { Authorization: 'Bearer tl-key' },
      },
    ]);
  });

  it('refuses langfuse without its keys and logfire without its token', () => {
    expect(() => otlpTargets(['langfuse'], { LANGFUSE_PUBLIC_KEY: 'pk' })).toThrow(
      'LANGFUSE_SECRET_KEY',
    );
    expect(() => otlpTargets(['logfire'], {})).toThrow(TracingConfigInvalid);
    expect(() => parseOtlpHeaders('k=%E0%A4%A')).toThrow(TracingConfigInvalid);
  });

  it('creates one tracer per backend and a MultiTracer for several', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' };
    expect(createTracer({ env: { ...env, AGENT_KERNEL_TRACING: 'otlp' } })).toBeInstanceOf(
      OtelTracer,
    );
    const multi = createTracer({
      env: { ...env, AGENT_KERNEL_TRACING: 'cloudwatch,otlp', AGENT_KERNEL_XRAY: 'false' },
      sink: () => {},
    });
    expect(multi).toBeInstanceOf(MultiTracer);
    expect((multi as MultiTracer).tracers.map((t) => t.constructor)).toEqual([
      CloudWatchTracer,
      OtelTracer,
    ]);
  });

  it('teaches the redactor every preset credential, header values included', () => {
    // Prepare
    const env = {
      AGENT_KERNEL_TRACING: 'otlp,langfuse,logfire,openllmetry',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc-PLANTED-team-key',
      LANGFUSE_PUBLIC_KEY: 'pk-lf-public', // not a secret: Langfuse shows it in its UI
      LANGFUSE_SECRET_KEY: 'sk-lf-PLANTED-secret',
      LOGFIRE_TOKEN: 'pylf_v1_us_PLANTEDtoken',
      TRACELOOP_API_KEY: 'tl-PLANTED-api-key',
    };

    // Act
    const tracer = new OtelTracer({ env });
    const headers = tracer.targets.flatMap((t) => Object.values(t.headers));
    const line = tracer.redactor.string([...Object.values(env), ...headers].join(' '));

    // Assess
    expect(headers).toHaveLength(4);
    expect(line).not.toContain('PLANTED');
    expect(line).not.toContain(Buffer.from('pk-lf-public:sk-lf-PLANTED-secret').toString('base64'));
    void tracer.close();
  });

  it('hashes, omits or keeps the principal as the privacy setting says', () => {
    const options = { traceloop: false } as const;
    const hashed = toOtelAttributes({ principal: 'alice' }, { ...options, principal: 'hash' });
    expect(hashed['enduser.id']).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(JSON.stringify(hashed)).not.toContain('alice');
    expect(toOtelAttributes({ principal: 'alice' }, { ...options, principal: 'omit' })).toEqual({});
    expect(toOtelAttributes({ principal: 'alice' }, { ...options, principal: 'plain' })).toEqual({
      'enduser.id': 'alice',
    });
  });
});
