import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EnvSchema,
  TracingConfigSchema,
  tracingConfigFromEnv,
} from '../../../lib/tracing/config.js';
import { fastTracingConfig, fastTracingEnv } from '../../../lib/tracing/config-fast.js';
import { tracingConfigLight } from '../../../lib/tracing/config-light.js';

const KEYS = Object.keys(EnvSchema.shape);
const SAMPLES = [
  '',
  'worker',
  'cloudwatch',
  'CloudWatch, langfuse',
  'none',
  'none,otlp',
  'bogus',
  'hash',
  'plain',
  'HASH',
  '127.0.0.1:2000',
  'udp:10.0.0.1:2000 tcp:10.0.0.1:2000',
  '[::1]:2000',
  'host:0',
  'host:70000',
  'true',
  'false',
  '1',
  '0',
  'yes',
  'info',
  'TRACE',
  '0.5',
  '1',
  '.5',
  '1e-1',
  ' 0.5',
  'abc',
];

describe('the hand-checked tracing configuration', () => {
  it('accepts only what EnvSchema accepts, as it gives it', () => {
    for (const key of KEYS) {
      for (const value of SAMPLES) {
        const fast = fastTracingEnv({ [key]: value });
        const parsed = EnvSchema.safeParse({ [key]: value });
        if (fast !== undefined)
          expect({ key, value, fast }).toEqual({ key, value, fast: parsed.data });
      }
    }
    expect(fastTracingEnv({ AGENT_KERNEL_TRACING: 'cloudwatch' })).toBeDefined();
  });

  it('agrees with EnvSchema on random environments (property)', () => {
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 10 }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }), (env) => {
        const fast = fastTracingEnv(env);
        if (fast !== undefined) expect(fast).toEqual(EnvSchema.parse(env));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with TracingConfigSchema on configurations built in code (property)', () => {
    const config = fc.record(
      {
        backend: fc.constantFrom('cloudwatch', 'none', 'otlp'),
        otel: fc.array(fc.constantFrom('otlp', 'langfuse', 'nope')),
        principal: fc.constantFrom('hash', 'omit', 'plain', 'x'),
        serviceName: fc.string({ maxLength: 201 }),
        namespace: fc.string({ maxLength: 3 }),
        daemon: fc.record({
          host: fc.string({ maxLength: 3 }),
          port: fc.integer({ min: -1, max: 70_000 }),
        }),
        xray: fc.oneof(fc.boolean(), fc.constant('true')),
        capturePayloads: fc.boolean(),
        logLevel: fc.constantFrom('debug', 'info', 'warn', 'error', 'trace'),
        sampleRate: fc.oneof(fc.double({ min: -1, max: 2 }), fc.constant(Number.NaN)),
        extra: fc.constant(1),
      },
      {
        requiredKeys: [
          'backend',
          'serviceName',
          'namespace',
          'daemon',
          'xray',
          'capturePayloads',
          'logLevel',
          'sampleRate',
        ],
      },
    );
    fc.assert(
      fc.property(config, (value) => {
        const fast = fastTracingConfig(value);
        if (fast !== undefined) expect(fast).toEqual(TracingConfigSchema.parse(value));
      }),
      { numRuns: 1000 },
    );
    const usual = {
      backend: 'cloudwatch',
      serviceName: 'worker',
      namespace: 'AgentKernel',
      daemon: { host: '127.0.0.1', port: 2000 },
      xray: true,
      capturePayloads: false,
      logLevel: 'info',
      sampleRate: 1,
    };
    expect(fastTracingConfig(usual)).toEqual(TracingConfigSchema.parse(usual));
  });

  it('reads the environment as tracingConfigFromEnv does without the schemas at hand (property)', async () => {
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 10 }));
    const overrides = fc.constantFrom(
      {},
      { serviceName: 'fanout' },
      { backend: 'cloudwatch' as const },
    );
    const outcome = async (read: () => unknown) => {
      try {
        return { config: await read() };
      } catch (error) {
        return { error: String(error) };
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }),
        overrides,
        async (env, given) => {
          const light = await outcome(() => tracingConfigLight(env, given));
          expect(light).toEqual(await outcome(() => tracingConfigFromEnv(env, given)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
