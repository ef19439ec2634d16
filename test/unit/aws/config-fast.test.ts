import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { CONFIG_KEYS, CONFIG_RULES, fastConfig } from '../../../lib/aws/wiring/config-fast.js';
import { loadConfigLight } from '../../../lib/aws/wiring/config-light.js';
import { ConfigSchema } from '../../../lib/aws/wiring/config-schema.js';

/** What the schema says, the reference the hand-written rules must agree with. */
function bySchema(env: Record<string, string>) {
  const parsed = ConfigSchema.safeParse(env);
  return parsed.success ? parsed.data : undefined;
}

// Values near each rule's edges: valid, invalid and unusual spellings of both.
const SAMPLES = [
  '0',
  '1',
  '30',
  '901',
  '1000',
  '28000',
  '28001',
  '86400',
  '-1',
  ' 30',
  '30 ',
  '1e3',
  '0x10',
  '3.5',
  '007',
  '9007199254740993',
  'abc',
  'ab',
  'agents',
  'x'.repeat(16),
  'x'.repeat(1025),
  'http://127.0.0.1:4566',
  'https://sqs.us-east-1.amazonaws.com/123/runs.fifo',
  ' http://127.0.0.1:1',
  'http://exa\nmple.com',
  'not a url',
  'mailto:x@y',
  'sqs-fanout',
  'direct',
  'hs256',
  'jwks',
  'none',
  'DEBUG',
  'debug',
  'on',
  'off',
  '*',
  'demo,support_2',
  'demo, support',
  'a,,b',
  'back-office, ops-bot',
  'svc\u0001',
  'OPENAI_API_KEY',
  '{"default":{"model":"m","inputPerMillion":1,"outputPerMillion":2}}',
];

describe('the hand-checked configuration', () => {
  it('has a rule for every variable of the schema', () => {
    expect([...CONFIG_KEYS].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });

  it('gives the schema’s defaults for an empty environment', () => {
    expect(fastConfig({})).toEqual(bySchema({}));
  });

  it('accepts only what the schema accepts, as the schema gives it, for every variable and sample', () => {
    for (const key of Object.keys(CONFIG_RULES)) {
      for (const value of SAMPLES) {
        const fast = fastConfig({ [key]: value });
        if (fast !== undefined)
          expect({ key, value, config: fast }).toEqual({
            key,
            value,
            config: bySchema({ [key]: value }),
          });
      }
    }
  });

  it('hand-checks the usual deployment without the schema', () => {
    const env = {
      TABLE_NAME: 'agents',
      RUN_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123/runs.fifo',
      EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123/events.fifo',
      AUTH_MODE: 'hs256',
      JWT_SECRET: 'x'.repeat(32),
      AGENT_NAMES: 'demo,support',
      SESSION_TTL_SECONDS: '3600',
    };
    expect(fastConfig(env)).toBeDefined();
    expect(fastConfig(env)).toEqual(bySchema(env));
  });

  it('agrees with the schema on random environments (property)', () => {
    const keys = Object.keys(CONFIG_RULES);
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }), (env) => {
        const fast = fastConfig(env);
        if (fast !== undefined) expect(fast).toEqual(bySchema(env));
      }),
      { numRuns: 500 },
    );
  });

  it('loads as loadConfig does without the schema at hand: same config, same errors (property)', async () => {
    const keys = Object.keys(CONFIG_RULES);
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 12 }));
    const required = fc.subarray(['TABLE_NAME', 'RUN_QUEUE_URL'] as const);
    const outcome = async (load: () => unknown) => {
      try {
        return { config: await load() };
      } catch (error) {
        return { error: String(error), variables: (error as { variables?: unknown }).variables };
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }),
        required,
        async (env, require) => {
          const light = await outcome(() => loadConfigLight(env, require));
          expect(light).toEqual(await outcome(() => loadConfig(env, require)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
