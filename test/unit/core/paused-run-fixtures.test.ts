import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentKernelError } from '../../../lib/core/errors.js';
import { parsePausedRun } from '../../../lib/core/paused-run-migrations.js';
import { checkDecisions, DecisionsSchema } from '../../../lib/core/resume.js';

const root = join(import.meta.dirname, '../../fixtures/paused-runs');
const read = (path: string): unknown => JSON.parse(readFileSync(join(root, path), 'utf8'));
const files = (dir: string) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.json'));

describe('paused-run v1 golden fixtures', () => {
  it.each(files('v1'))('%s loads unchanged', (file) => {
    // Prepare
    const raw = read(`v1/${file}`);

    // Act
    const run = parsePausedRun(raw, file);

    // Assess: nothing dropped or rewritten on load.
    expect(run).toEqual(raw);
    expect(run.schemaVersion).toBe(1);
  });
});

describe('paused-run negative fixtures', () => {
  it.each(files('invalid'))('%s is rejected with record-corrupt', (file) => {
    // Prepare
    const raw = read(`invalid/${file}`);

    // Act
    const attempt = () => parsePausedRun(raw, file);

    // Assess
    expect(attempt).toThrow(AgentKernelError);
    try {
      attempt();
    } catch (err) {
      expect(err).toMatchObject({ code: 'record-corrupt' });
      expect((err as Error).message).toContain(file);
    }
  });

  it('names the future version it cannot read', () => {
    expect(() => parsePausedRun(read('invalid/future-schema-version.json'))).toThrow(
      /schemaVersion 2 is newer/,
    );
  });

  it('does not pollute prototypes while reading a tampered file', () => {
    parsePausedRun(read('v1/input-request.json'));
    expect(() => parsePausedRun(read('invalid/proto-key.json'))).toThrow(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('decisions against the golden run', () => {
  const run = parsePausedRun(read('v1/input-request.json'));

  it.each([
    ['unknown-id.json', /no interruption "call_never_made"/],
    ['missing-decision.json', /missing: call_book_1/],
    ['duplicate-decision.json', /decided twice/],
  ])('%s is rejected', (file, message) => {
    // Prepare
    const decisions = DecisionsSchema.parse(read(`decisions/${file}`));

    // Act + Assess
    expect(() => checkDecisions(run, decisions)).toThrow(message);
    try {
      checkDecisions(run, decisions);
    } catch (err) {
      expect(err).toMatchObject({ code: 'invalid-decisions' });
    }
  });

  it('accepts one decision per interruption', () => {
    expect(() =>
      checkDecisions(run, [
        { id: 'ask-1', status: 'approved', message: 'Christmas Eve' },
        { id: 'call_book_1', status: 'denied' },
      ]),
    ).not.toThrow();
  });
});
