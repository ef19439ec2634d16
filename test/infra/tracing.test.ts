import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { OTEL_PRESETS } from '../../infra/bundling.js';
import { configFromContext, InvalidContextError } from '../../infra/config.js';
import { OTEL_PRESETS as LIB_PRESETS } from '../../lib/tracing/config.js';
import { resourcesOf, stubFunctionsDir, synthesise } from './helpers.js';

// The tracing knobs: backends, the OTel presets' endpoints, and their credentials through a
// Secrets Manager secret that the functions get by name only (read at cold start).
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const LANGFUSE = {
  tracing: 'cloudwatch,langfuse',
  tracingSecretName: 'agent-kernel/tracing',
  langfuseBaseUrl: 'https://eu.cloud.langfuse.com',
};

describe('tracing context', () => {
  it('sets the backends, endpoints and secret name, defaulting to cloudwatch unset', () => {
    // Act
    const chosen = configFromContext(LANGFUSE).tracing;
    const plain = configFromContext({}).tracing;

    // Assess
    expect(chosen).toEqual({
      backends: ['cloudwatch', 'langfuse'],
      secretName: 'agent-kernel/tracing',
      environment: {
        AGENT_KERNEL_TRACING: 'cloudwatch,langfuse',
        LANGFUSE_BASE_URL: 'https://eu.cloud.langfuse.com',
        AGENT_KERNEL_TRACING_SECRET_NAME: 'agent-kernel/tracing',
      },
    });
    expect(plain).toEqual({ backends: ['cloudwatch'], environment: {} });
    expect(OTEL_PRESETS).toEqual(LIB_PRESETS);
  });

  it.each([
    [{ tracing: 'cloudwatch,jaeger' }, /tracing: each must be cloudwatch, none, otlp/],
    [{ tracing: 'none,otlp' }, /none cannot be listed with others/],
    [{ tracing: 'langfuse' }, /langfuse needs tracingSecretName/],
    [{ tracing: 'logfire,otlp' }, /logfire needs tracingSecretName/],
    [{ tracing: 'otlp', langfuseBaseUrl: 'https://x.example' }, /langfuseBaseUrl is set but/],
    [{ tracingSecretName: 'agent-kernel/tracing' }, /lists no OTel preset to read it/],
    [{ tracing: 'otlp', otlpEndpoint: 'ftp://collector' }, /otlpEndpoint: must be an http/],
    [{ tracing: 'otlp', tracingSecretName: 'a b' }, /tracingSecretName: must be a Secrets Manager/],
  ])('refuses %j', (context, message) => {
    expect(() => configFromContext(context)).toThrow(InvalidContextError);
    expect(() => configFromContext(context)).toThrow(message);
  });
});

describe('tracing wiring', () => {
  it('gives every function the backends and the secret name, and read access to that secret only', () => {
    // Prepare
    const functionsDir = stubFunctionsDir();
    dirs.push(functionsDir);

    // Act
    const synth = synthesise({ functionsDir, bundle: false, context: LANGFUSE });
    dirs.push(synth.outdir);

    // Assess
    const functions = Object.values(resourcesOf(synth.template, 'AWS::Lambda::Function'));
    const kernel = functions.filter((f) => f.Properties.Environment?.Variables?.NODE_OPTIONS);
    expect(kernel.length).toBeGreaterThanOrEqual(9);
    for (const fn of kernel) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      expect(variables).toMatchObject({
        AGENT_KERNEL_TRACING: 'cloudwatch,langfuse',
        AGENT_KERNEL_TRACING_SECRET_NAME: 'agent-kernel/tracing',
        LANGFUSE_BASE_URL: 'https://eu.cloud.langfuse.com',
      });
      expect(
        Object.keys(variables).filter((name) => /LANGFUSE_(SECRET|PUBLIC)_KEY/.test(name)),
      ).toEqual([]);
    }
    const policies = JSON.stringify(resourcesOf(synth.template, 'AWS::IAM::Policy'));
    const grants = policies.match(/secret:agent-kernel\/tracing-\?{6}/g) ?? [];
    expect(grants.length).toBe(kernel.length);
  });
});
