import { describe, expect, it } from 'vitest';
import { http, useLocalStack, useWsUsers } from './clients.js';

// DELETE /sessions/{id} over the local stack's real HTTP API, tried by its owner and by others.
const stack = useLocalStack();
const user = useWsUsers(stack);

async function aliceSession(sessionId: string) {
  const run = await http(stack, 'alice', 'POST', '/runs', {
    agent: 'demo',
    sessionId,
    input: 'book a table for 2 at 8pm',
  });
  expect(run.body).toMatchObject({ status: 'paused' });
  return run.body.runId as string;
}

describe('DELETE /sessions/{id}', () => {
  it('lets the owner forget a session and its paused run; a new turn starts afresh', async () => {
    // Prepare
    const runId = await aliceSession('clear-1');

    // Act
    const cleared = await http(stack, 'alice', 'DELETE', '/sessions/clear-1');
    const read = await http(stack, 'alice', 'GET', '/sessions/clear-1');
    const decide = await http(stack, 'alice', 'POST', `/sessions/clear-1/runs/${runId}/decisions`, {
      decisions: [{ id: 'any', status: 'approved' }],
    });
    const again = await http(stack, 'alice', 'POST', '/runs', {
      agent: 'demo',
      sessionId: 'clear-1',
      input: 'hello',
    });

    // Assess
    expect(cleared).toEqual({ status: 200, body: { sessionId: 'clear-1', cleared: true } });
    expect(read.status).toBe(404);
    expect(decide.status).toBe(404);
    expect(again.body).toMatchObject({ status: 'completed' });
    const after = await http(stack, 'alice', 'GET', '/sessions/clear-1');
    expect(after.body).toMatchObject({ turns: 1, paused: [] });
  });

  it('refuses another principal, a missing token and a guessed id, and changes nothing', async () => {
    // Prepare
    await aliceSession('clear-2');

    // Act
    const mallory = await http(stack, 'mallory', 'DELETE', '/sessions/clear-2');
    const anonymous = await fetch(`${stack.httpUrl}/sessions/clear-2`, { method: 'DELETE' });
    const guessed = await http(stack, 'mallory', 'DELETE', '/sessions/no-such-session');
    const malformed = await http(stack, 'alice', 'DELETE', `/sessions/${'x'.repeat(300)}`);

    // Assess
    // Another's session reads as absent: its existence is not confirmed.
    expect(mallory.status).toBe(404);
    expect(anonymous.status).toBe(401);
    expect(guessed.status).toBe(404);
    expect(malformed.status).toBe(400);
    const kept = await http(stack, 'alice', 'GET', '/sessions/clear-2');
    expect(kept.body).toMatchObject({ paused: [expect.objectContaining({})] });
  });
});

describe('WebSocket action clear', () => {
  it('clears the owner’s session in its queue order: a run sent after it starts afresh', async () => {
    // Prepare
    const alice = await user('alice');
    alice.send({
      action: 'run',
      requestId: 'c-r1',
      agent: 'demo',
      sessionId: 'ws-clear-1',
      input: 'hi',
    });
    await alice.terminal((await alice.answer('c-r1')).runId);

    // Act: clear and run again at once; the queue keeps their order.
    const before = (await alice.answer('c-r1')).runId;
    alice.send({ action: 'clear', requestId: 'c-clear', sessionId: 'ws-clear-1' });
    const accepted = await alice.answer('c-clear');
    alice.send({
      action: 'run',
      requestId: 'c-r2',
      agent: 'demo',
      sessionId: 'ws-clear-1',
      input: 'again',
    });
    const after = (await alice.answer('c-r2')).runId;
    await alice.terminal(after);

    // Assess
    expect(accepted).toMatchObject({ type: 'accepted', sessionId: 'ws-clear-1' });
    const session = await http(stack, 'alice', 'GET', '/sessions/ws-clear-1');
    expect(session.body).toMatchObject({ turns: 1 });
    // The run accepted before the clear ran after it, in the session's new life: its record is
    // of that life; the run before the clear is of the cleared one.
    const records = await Promise.all(
      [after, before].map((id) => http(stack, 'alice', 'GET', `/sessions/ws-clear-1/runs/${id}`)),
    );
    expect(records[0]).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(records[1]?.status).toBe(404);
  });

  it('refuses another principal’s session and a malformed request, and clears nothing', async () => {
    // Prepare
    const alice = await user('alice');
    const mallory = await user('mallory');
    alice.send({
      action: 'run',
      requestId: 'c-r3',
      agent: 'demo',
      sessionId: 'ws-clear-2',
      input: 'hi',
    });
    await alice.terminal((await alice.answer('c-r3')).runId);

    // Act
    mallory.send({ action: 'clear', requestId: 'm-clear', sessionId: 'ws-clear-2' });
    const refused = await mallory.answer('m-clear');
    mallory.send({ action: 'clear', requestId: 'm-bad', sessionId: 'bad id!' });
    const malformed = await mallory.answer('m-bad');

    // Assess
    expect(refused).toMatchObject({ type: 'error', code: 'not-found' });
    expect(malformed).toMatchObject({ type: 'error', code: 'invalid-message' });
    const session = await http(stack, 'alice', 'GET', '/sessions/ws-clear-2');
    expect(session.body).toMatchObject({ turns: 1 });
  });
});
