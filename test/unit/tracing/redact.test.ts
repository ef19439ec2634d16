import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, secretsFromEnv } from '../../../lib/tracing/index.js';

describe('Redactor', () => {
  it('hides the values of sensitive keys whatever their spelling', () => {
    // Prepare
    const redactor = new Redactor();
    const headers = {
      Authorization: 'Basic abc',
      'x-api-key': 'k1',
      apiKey: 'k2',
      OPENAI_API_KEY: 'k3',
      client_secret: 'k4',
      'X-Amz-Security-Token': 'k5',
      Cookie: 'sid=1',
      accept: 'application/json',
      inputTokens: 12,
    };

    // Act
    const out = redactor.redact({ headers }) as { headers: Record<string, unknown> };

    // Assess
    expect(out.headers).toEqual({
      Authorization: REDACTED,
      'x-api-key': REDACTED,
      apiKey: REDACTED,
      OPENAI_API_KEY: REDACTED,
      client_secret: REDACTED,
      'X-Amz-Security-Token': REDACTED,
      Cookie: REDACTED,
      accept: 'application/json',
      inputTokens: 12,
    });
  });

  it('hides secret-shaped values inside any string', () => {
    // Prepare
    const redactor = new Redactor();
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl';

    // Act
    const out = redactor.string(
      `key sk-abcdefghijklmnop1234 header Bearer abc.def-123456 aws AKIAABCDEFGHIJKLMNOP jwt ${jwt}`,
    );

    // Assess
    expect(out).toBe(`key ${REDACTED} header ${REDACTED} aws ${REDACTED} jwt ${REDACTED}`);
  });

  it('hides values at sensitive paths and every later echo of them', () => {
    // Prepare
    const redactor = new Redactor();
    const args = { card: { number: '4111111111111111', name: 'Ann' }, items: [{ code: 'abc123' }] };

    // Act
    const out = redactor.redact(args, ['card.number', 'items.*.code']);
    const echo = redactor.string('charged card 4111111111111111 with code abc123');

    // Assess
    expect(out).toEqual({ card: { number: REDACTED, name: 'Ann' }, items: [{ code: REDACTED }] });
    expect(echo).toBe(`charged card ${REDACTED} with code ${REDACTED}`);
  });

  it('never answers from its cache of short strings once a secret is learnt', () => {
    // Prepare: the same ids and names are redacted on every span, so their answers are kept.
    const redactor = new Redactor();
    const line = 'session s-1 of key-77aa99';
    const before = redactor.string(line);

    // Act: past the cache's bound too, every answer is still the rules' own.
    redactor.learn('key-77aa99');
    const after = redactor.string(line);
    for (let i = 0; i < 2_000; i++) redactor.string(`agent-${i} sk-${'x'.repeat(20)}${i}`);
    const shaped = redactor.string(`agent-1999 sk-${'x'.repeat(20)}1999`);

    // Assess
    expect(before).toBe(line);
    expect(after).toBe(`session s-1 of ${REDACTED}`);
    expect(shaped).toBe(`agent-1999 ${REDACTED}`);
  });

  it('learns sensitive values without copying, ignores short ones and stays bounded', () => {
    // Prepare
    const redactor = new Redactor();

    // Act
    redactor.learnPaths({ pin: 'pin-998877', short: 'ab' }, ['pin', 'short']);
    for (let i = 0; i < 1_100; i++) redactor.learn(`secret-number-${i}`);

    // Assess: the oldest learnt values are forgotten first, short ones never learnt.
    expect(redactor.string('pin-998877 ab')).toBe('pin-998877 ab');
    expect(redactor.string('secret-number-1099')).toBe(REDACTED);
  });

  it('copies safely: errors, dates, bigints, cycles, depth and long strings', () => {
    // Prepare
    const redactor = new Redactor();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 15; i++) {
      deep.next = {};
      deep = deep.next as Record<string, unknown>;
    }

    // Act
    const out = redactor.redact({
      error: new Error('failed with sk-abcdefghijklmnop1234'),
      at: new Date(0),
      big: 10n,
      fn: () => 1,
      cyclic,
      root,
      long: 'x'.repeat(5_000),
    }) as Record<string, unknown> & { cyclic: { self: unknown }; long: string };

    // Assess
    expect(out.error).toEqual({ name: 'Error', message: `failed with ${REDACTED}` });
    expect(out.at).toBe('1970-01-01T00:00:00.000Z');
    expect(out.big).toBe('10');
    expect('fn' in out).toBe(false);
    expect(out.cyclic.self).toBe('[Circular]');
    expect(JSON.stringify(out.root)).toContain('[Truncated]');
    expect(out.long.length).toBeLessThan(4_200);
  });

  it('collects the secrets of the environment', () => {
    // Act
    const secrets = secretsFromEnv({
      OPENAI_API_KEY: 'sk-live-123456',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI',
      AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2Vj',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      SHORT_TOKEN: 'abc',
    });

    // Assess
    expect(secrets.sort()).toEqual(['IQoJb3JpZ2luX2Vj', 'sk-live-123456', 'wJalrXUtnFEMI']);
    expect(new Redactor({ secrets }).string('x wJalrXUtnFEMI y')).toBe(`x ${REDACTED} y`);
  });

  it('does not take the offline model marker for a secret (the word stays readable)', () => {
    // Act
    const secrets = secretsFromEnv({ OPENAI_API_KEY: 'offline', MODEL_TOKEN: 'offline-123' });

    // Assess
    expect(secrets).toEqual(['offline-123']);
    expect(new Redactor({ secrets }).string('works offline')).toBe('works offline');
  });
});
