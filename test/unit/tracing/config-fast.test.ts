import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EnvSchema,
  TracingConfigSchema,
  tracingConfigFromEnv,
} from '../../../lib/tracing/config.js';
import {
  fromTracingEnv,
  handTracingConfig,
  handTracingEnv,
  presentTracingEnv,
  type TracingEnv,
} from '../../../lib/tracing/config-fast.js';
import { tracingConfigLight } from '../../../lib/tracing/config-light.js';
import { TracingConfigInvalid } from '../../../lib/tracing/errors.js';

/** What a schema answers: its value, or its first issue as the hand checks word an error. */
function bySchema(schema: { safeParse: (value: unknown) => unknown }, value: unknown) {
  const parsed = schema.safeParse(value) as
    | { success: true; data: unknown }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `${issue?.path.join('.') || '(root)'}: ${issue?.message}` };
}

function byHand(check: () => unknown) {
  try {
    return { value: check() };
  } catch (error) {
    if (!(error instanceof TracingConfigInvalid)) throw error;
    return { error: error.message.replace('Invalid tracing configuration: ', '') };
  }
}

/** tracingConfigFromEnv as it was with the schemas: the reference for the hand path. */
function fromEnvBySchema(env: Record<string, string>, overrides: Record<string, unknown>) {
  const read = bySchema(EnvSchema, presentTracingEnv(env));
  if ('error' in read) return read;
  return bySchema(TracingConfigSchema, fromTracingEnv(read.value as TracingEnv, overrides));
}

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
  '0x1',
  '2',
  '-0',
  'Infinity',
  'abc',
  // Names Object.prototype has: a lookup table must not take them for allowed values.
  'valueOf',
  'toString',
  '__proto__',
  'constructor',
];

describe('the hand-checked tracing configuration', () => {
  it('answers as EnvSchema does — value or first issue — for every variable and sample', () => {
    for (const key of KEYS) {
      for (const value of SAMPLES) {
        expect({ key, value, ...byHand(() => handTracingEnv({ [key]: value })) }).toEqual({
          key,
          value,
          ...bySchema(EnvSchema, { [key]: value }),
        });
      }
    }
    expect(handTracingEnv({ AGENT_KERNEL_TRACING: 'cloudwatch' })).toBeDefined();
  });

  it('agrees with EnvSchema on random environments (property)', () => {
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 10 }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }), (env) => {
        expect(byHand(() => handTracingEnv(env))).toEqual(bySchema(EnvSchema, env));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with TracingConfigSchema on configurations built in code (property)', () => {
    const config = fc.record(
      {
        backend: fc.constantFrom('cloudwatch', 'none', 'otlp'),
        otel: fc.oneof(fc.array(fc.constantFrom('otlp', 'langfuse', 'nope')), fc.constant('otlp')),
        principal: fc.constantFrom('hash', 'omit', 'plain', 'x'),
        serviceName: fc.oneof(fc.string({ maxLength: 201 }), fc.constant(7)),
        namespace: fc.string({ maxLength: 3 }),
        daemon: fc.oneof(
          fc.record(
            {
              host: fc.string({ maxLength: 3 }),
              port: fc.oneof(fc.integer({ min: -1, max: 70_000 }), fc.constant(1.5)),
              extra: fc.constant(true),
            },
            { requiredKeys: [] },
          ),
          fc.constant(null),
        ),
        xray: fc.oneof(fc.boolean(), fc.constant('true')),
        capturePayloads: fc.boolean(),
        logLevel: fc.constantFrom('debug', 'info', 'warn', 'error', 'trace'),
        sampleRate: fc.oneof(fc.double({ min: -1, max: 2 }), fc.constant(Number.NaN)),
        extra: fc.constant(1),
        constructor: fc.constant(2),
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
        expect(byHand(() => handTracingConfig(value))).toEqual(
          bySchema(TracingConfigSchema, value),
        );
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
    expect(handTracingConfig(usual)).toEqual(TracingConfigSchema.parse(usual));
    for (const extra of [{ constructor: 1 }, { toString: 'x', extra: 2 }, { otel: undefined }]) {
      const config = { ...usual, ...extra };
      expect(byHand(() => handTracingConfig(config))).toEqual(
        bySchema(TracingConfigSchema, config),
      );
    }
  });

  it('reads the environment as the schemas did, light or not: same config, same error (property)', () => {
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 10 }));
    const overrides = fc.constantFrom(
      {},
      { serviceName: 'fanout' },
      { backend: 'cloudwatch' as const },
      { serviceName: 'x'.repeat(201) },
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }),
        overrides,
        (env, given) => {
          const expected = fromEnvBySchema(env, given);
          expect(byHand(() => tracingConfigFromEnv(env, given))).toEqual(expected);
          expect(byHand(() => tracingConfigLight(env, given))).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
