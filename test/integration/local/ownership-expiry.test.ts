import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { http, useLocalStack } from './clients.js';

// A session that expires by TTL, with the clock moved: every store of the local stack reads
// `Date.now`, faked (Date only: timers stay real) before the stack is built, then moved past the
// session head's TTL while a later record of the session is still alive.
const DAY_MS = 24 * 3600_000;
const CANARY = 'ALICE-EXPIRED-91d2';

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
});
afterAll(() => {
  vi.useRealTimers();
});
const stack = useLocalStack();

/** Polls a run record until `done` says so (the worker runs the job meanwhile). */
async function settled(principal: string, path: string, done: (body: any) => boolean) {
  for (let i = 0; i < 200; i++) {
    const read = await http(stack, principal, 'GET', path);
    if (read.status === 200 && done(read.body)) return read.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} never settled`);
}

describe('a session expired by TTL stays with nobody', () => {
  it('bob claims an expired id: a record of alice’s still alive is not-found to him and to her', async () => {
    // Prepare: a completed and a paused run; an hour later a run the pause refuses (its record
    // is written then, so it outlives the head by an hour).
    const post = (principal: string, body: object) => http(stack, principal, 'POST', '/runs', body);
    const run = { agent: 'demo', sessionId: 'exp-1' };
    const done = await post('alice', { ...run, input: `hello ${CANARY}` });
    const paused = await post('alice', { ...run, input: `book a table for 2 at 8pm ${CANARY}` });
    vi.setSystemTime(Date.now() + 3600_000);
    const refused = await post('alice', { ...run, input: `again ${CANARY}`, mode: 'async' });
    const failed = await settled('alice', `/sessions/exp-1/runs/${refused.body.runId}`, (r) =>
      ['failed', 'completed'].includes(r.status),
    );

    // Act: past the head's TTL (7 days after its last write), within the late record's.
    vi.setSystemTime(Date.now() + 7 * DAY_MS - 1800_000);
    const gone = await http(stack, 'alice', 'GET', '/sessions/exp-1');
    const claimed = await post('bob', { ...run, input: 'bob here' });
    const runIds = [done.body.runId, paused.body.runId, refused.body.runId];
    const bobs = [];
    const alices = [];
    for (const runId of runIds) {
      bobs.push(await http(stack, 'bob', 'GET', `/sessions/exp-1/runs/${runId}`));
      alices.push(await http(stack, 'alice', 'GET', `/sessions/exp-1/runs/${runId}`));
    }
    const decisions = { decisions: [{ id: paused.body.interruptions[0].id, status: 'approved' }] };
    const decided = await http(
      stack,
      'bob',
      'POST',
      `/sessions/exp-1/runs/${paused.body.runId}/decisions`,
      decisions,
    );

    // Assess
    expect(done.body).toMatchObject({ status: 'completed' });
    expect(paused.body).toMatchObject({ status: 'paused' });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'session-paused' } });
    expect(gone.status).toBe(404);
    expect(claimed.body).toMatchObject({ status: 'completed', sessionId: 'exp-1' });
    for (const answer of [...bobs, ...alices, decided]) expect(answer.status).toBe(404);
    expect(JSON.stringify([bobs, alices, decided])).not.toContain(CANARY);
  }, 60_000);
});
