import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedConfig, loadConfig, presentConfig } from '../../../lib/aws/wiring/config-check.js';
import { CONFIG_KEYS, CONFIG_RULES, handConfig } from '../../../lib/aws/wiring/config-fast.js';
import { ConfigSchema } from '../../../lib/aws/wiring/config-schema.js';

/** What the schema says (value, or each issue's path and message): the hand check's reference. */
function bySchema(env: Record<string, string>) {
  const parsed = ConfigSchema.safeParse(env);
  return parsed.success
    ? { success: true, data: parsed.data }
    : {
        success: false,
        issues: parsed.error.issues.map(({ path, message }) => ({ path, message })),
      };
}

function byHand(env: Record<string, string>) {
  const parsed = handConfig(env);
  return parsed.success
    ? { success: true, data: parsed.data }
    : {
        success: false,
        issues: parsed.error.issues.map(({ path, message }) => ({ path, message })),
      };
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
  '-0',
  '  ',
  '3.0',
  'Infinity',
  '-Infinity',
  '-9007199254740993',
  '1e400',
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
  '{"a":{"model":"m","inputPerMillion":1e400,"outputPerMillion":20000,"x":1,"y":2}}',
  '{"a":[],"b":null,"c":"s","d":true,"e":{"model":5}}',
  '{"__proto__":{"model":"m"},"1":{"model":"m","inputPerMillion":0,"outputPerMillion":-0}}',
  '{"a":{"__proto__":1,"model":"","inputPerMillion":-1,"outputPerMillion":"x"}}',
  `{"${'k'.repeat(257)}":{},"":1}`,
  '{',
  '[]',
  'null',
  '"s"',
];

/** MODEL_PRICES tables near the schema's edges: rows valid, broken, missing or with extras. */
const priceTable = fc
  .dictionary(
    fc.oneof(fc.constantFrom('default', 'demo', '', '__proto__', '7'), fc.string({ maxLength: 3 })),
    fc.oneof(
      fc.record(
        {
          model: fc.oneof(fc.string({ maxLength: 3 }), fc.constant('m'.repeat(101)), fc.integer()),
          inputPerMillion: fc.oneof(fc.double(), fc.constantFrom(0, 10_000, 10_001, -1)),
          outputPerMillion: fc.oneof(fc.double({ min: 0, max: 10_000 }), fc.constant('1')),
          extra: fc.constant(true),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    { maxKeys: 3 },
  )
  .map((table) => JSON.stringify(table));

describe('the hand-checked configuration', () => {
  it('has a rule for every variable of the schema, in the schema’s order (its issues’ order)', () => {
    expect([...CONFIG_KEYS]).toEqual(Object.keys(ConfigSchema.shape));
  });

  it('gives the schema’s defaults for an empty environment', () => {
    expect(byHand({})).toEqual(bySchema({}));
  });

  it('answers as the schema does — value, or issues and messages in order — for every variable and sample', () => {
    for (const key of Object.keys(CONFIG_RULES)) {
      for (const value of SAMPLES) {
        expect({ key, value, ...byHand({ [key]: value }) }).toEqual({
          key,
          value,
          ...bySchema({ [key]: value }),
        });
      }
    }
  });

  it('takes the usual deployment', () => {
    const env = {
      TABLE_NAME: 'agents',
      RUN_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123/runs.fifo',
      EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123/events.fifo',
      AUTH_MODE: 'hs256',
      JWT_SECRET: 'x'.repeat(32),
      AGENT_NAMES: 'demo,support',
      SESSION_TTL_SECONDS: '3600',
    };
    expect(byHand(env)).toMatchObject({ success: true });
    expect(byHand(env)).toEqual(bySchema(env));
  });

  it('agrees with the schema on random environments (property)', () => {
    const keys = Object.keys(CONFIG_RULES);
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }), (env) => {
        expect(byHand(env)).toEqual(bySchema(env));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the schema on generated MODEL_PRICES tables (property)', () => {
    fc.assert(
      fc.property(priceTable, (table) => {
        expect(byHand({ MODEL_PRICES: table })).toEqual(bySchema({ MODEL_PRICES: table }));
      }),
      { numRuns: 1000 },
    );
  });

  it('loads as the schema would have it: same config, same errors (property)', () => {
    const keys = Object.keys(CONFIG_RULES);
    const value = fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ maxLength: 12 }));
    const required = fc.subarray(['TABLE_NAME', 'RUN_QUEUE_URL'] as const);
    const outcome = (load: () => unknown) => {
      try {
        return { config: load() };
      } catch (error) {
        return { error: String(error), variables: (error as { variables?: unknown }).variables };
      }
    };
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }),
        required,
        (env, require) => {
          const bySchemaLoad = () =>
            checkedConfig(ConfigSchema.safeParse(presentConfig(env)), require);
          expect(outcome(() => loadConfig(env, require))).toEqual(outcome(bySchemaLoad));
        },
      ),
      { numRuns: 300 },
    );
  });
});
