import { describe, expect, it } from 'vitest';
import { sendApproval } from '../../../lib/local/approve.js';
import { http, pause, useLocalStack, useWsUsers, type WsUser } from './clients.js';

// Ownership over time, as an attacker tries it against the local stack's real WebSocket, HTTP,
// invoke and approvals queue: alice uses session ids, clears them, and bob claims them next.
// The offline model echoes the user's words, so alice's canary shows in anything of hers.
const stack = useLocalStack();
const user = useWsUsers(stack);
const CANARY = 'ALICE-HISTORY-5e1c';

const runOf = (requestId: string, sessionId: string, input: string) => ({
  action: 'run',
  requestId,
  agent: 'demo',
  sessionId,
  input,
});

/** On `sessionId`: a completed run and a paused one (the booking asks a person first). */
async function aliceHistory(alice: WsUser, sessionId: string) {
  alice.send(runOf(`${sessionId}-1`, sessionId, `hello ${CANARY}`));
  const done = await alice.answer(`${sessionId}-1`);
  await alice.terminal(done.runId);
  alice.send(runOf(`${sessionId}-2`, sessionId, `book a table for 2 at 8pm ${CANARY}`));
  const asked = await alice.answer(`${sessionId}-2`);
  const end = await alice.terminal(asked.runId);
  const paused = end.events.at(-1);
  expect(paused).toMatchObject({ type: 'run-paused' });
  const call = paused.interruptions[0];
  expect(call.arguments).toBeDefined();
  return { done: done.runId as string, paused: asked.runId as string, callId: call.id as string };
}

/** Every route to a former run answers `not-found` (HTTP 404), whatever principal asks. */
async function expectGone(principal: string, sessionId: string, runIds: string[], callId: string) {
  const decisions = { decisions: [{ id: callId, status: 'approved' }] };
  for (const runId of runIds) {
    const read = await http(stack, principal, 'GET', `/sessions/${sessionId}/runs/${runId}`);
    const path = `/sessions/${sessionId}/runs/${runId}/decisions`;
    const decided = await http(stack, principal, 'POST', path, decisions);
    expect(read, `${principal} read ${runId}`).toMatchObject({ status: 404 });
    expect(decided, `${principal} decided ${runId}`).toMatchObject({ status: 404 });
    expect(JSON.stringify([read, decided])).not.toContain(CANARY);
  }
}

describe('a cleared session’s history stays with nobody', () => {
  it('bob claims a cleared id: no former run, paused run, decision or event reaches him', async () => {
    // Prepare
    const alice = await user('alice');
    const bob = await user('bob');
    const history = await aliceHistory(alice, 'own-1');
    const cleared = await http(stack, 'alice', 'DELETE', '/sessions/own-1');
    const heard = alice.messages.length;

    // Act: bob runs there (accepted: the id is free), then tries everything of alice's.
    const claimed = await http(stack, 'bob', 'POST', '/runs', {
      agent: 'demo',
      sessionId: 'own-1',
      input: 'bob was here',
    });
    await expectGone('bob', 'own-1', [history.done, history.paused], history.callId);
    bob.send({
      action: 'resume',
      requestId: 'own-1-bob-resume',
      sessionId: 'own-1',
      runId: history.paused,
      decisions: [{ id: history.callId, status: 'approved' }],
    });
    const resumed = await bob.answer('own-1-bob-resume');
    const invoked = await stack.invoke({
      action: 'resume',
      sessionId: 'own-1',
      runId: history.paused,
      decisions: [{ id: history.callId, status: 'approved' }],
      principal: 'bob',
    });
    await sendApproval(stack.queues.approvals, {
      sessionId: 'own-1',
      runId: history.paused,
      decisions: [{ id: history.callId, status: 'approved' }],
      principal: 'back-office',
      requestId: 'own-1-approval',
    });
    // Bob's run streams over the WebSocket too: alice's old subscription must hear none of it.
    bob.send(runOf('own-1-bob-ws', 'own-1', 'bob again'));
    const bobRun = await bob.answer('own-1-bob-ws');
    await bob.terminal(bobRun.runId);
    await pause(1_000);

    // Assess
    expect(cleared).toMatchObject({ status: 200, body: { cleared: true } });
    expect(claimed).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(resumed).toMatchObject({ type: 'error', code: 'paused-run-not-found' });
    expect(invoked).toMatchObject({ type: 'error', code: 'paused-run-not-found' });
    expect(JSON.stringify([bob.messages, resumed, invoked])).not.toContain(CANARY);
    const session = await http(stack, 'bob', 'GET', '/sessions/own-1');
    expect(session.body).toMatchObject({ turns: 2, paused: [] });
    expect(alice.messages.slice(heard).filter((m) => m.type === 'events')).toEqual([]);
  });

  it('the former owner’s documented answer: her former runs are not-found; a replay of her own request only while the id is hers', async () => {
    // Prepare
    const alice = await user('alice');
    const history = await aliceHistory(alice, 'own-2');
    await http(stack, 'alice', 'DELETE', '/sessions/own-2');

    // Act: before anyone claims it, after she claims it again, after bob claims it.
    const absent = await http(stack, 'alice', 'GET', `/sessions/own-2/runs/${history.done}`);
    alice.send(runOf('own-2-again', 'own-2', 'a new start'));
    const again = await alice.answer('own-2-again');
    await alice.terminal(again.runId);
    await expectGone('alice', 'own-2', [history.done, history.paused], history.callId);
    const fresh = await http(stack, 'alice', 'GET', `/sessions/own-2/runs/${again.runId}`);
    alice.send(runOf('own-2-1', 'own-2', `hello ${CANARY}`));
    const replayedHers = await alice.answer('own-2-1');
    await http(stack, 'alice', 'DELETE', '/sessions/own-2');
    await http(stack, 'bob', 'POST', '/runs', { agent: 'demo', sessionId: 'own-2', input: 'bob' });
    const late = alice.messages.length;
    alice.send({ ...runOf('own-2-1', 'own-2', `hello ${CANARY}`), requestId: 'own-2-1' });
    const replayedBobs = await alice.next(
      (m) => alice.messages.indexOf(m) >= late && m.requestId === 'own-2-1',
    );

    // Assess
    expect(absent.status).toBe(404);
    expect(again).toMatchObject({ type: 'accepted', sessionId: 'own-2' });
    expect(again.runId).not.toBe(history.done);
    expect(fresh).toMatchObject({ status: 200, body: { runId: again.runId, status: 'completed' } });
    // Within the idempotency window her own request gets her own first answer, nothing new...
    expect(replayedHers).toMatchObject({ type: 'accepted', runId: history.done });
    // ...and once the id is another's, the same as any request on another's session.
    expect(replayedBobs).toMatchObject({ type: 'error', code: 'not-found' });
  });
});

describe('ids nobody can take from you', () => {
  it('bob cannot pre-compute alice’s server-made session or run id and take it first', async () => {
    // Prepare: the ids as they were made before (a plain hash of guessable parts).
    const { createHash } = await import('node:crypto');
    const digest = (parts: string[]) =>
      createHash('sha256').update(JSON.stringify(parts)).digest('hex');
    const guessedSession = `s-${digest(['alice', 'first-chat']).slice(0, 32)}`;
    const bob = await user('bob');
    const alice = await user('alice');
    bob.send(runOf('squat-1', guessedSession, 'squatting'));
    await bob.terminal((await bob.answer('squat-1')).runId);

    // Act: alice's session-less run over the WebSocket, and over HTTP with an Idempotency-Key.
    alice.send({ action: 'run', requestId: 'first-chat', agent: 'demo', input: 'hi' });
    const viaWs = await alice.answer('first-chat');
    await alice.terminal(viaWs.runId);
    const headers = { 'idempotency-key': 'first-chat-http' };
    const body = { agent: 'demo', input: 'hi', mode: 'async' };
    const viaHttp = await http(stack, 'alice', 'POST', '/runs', body, headers);
    const retried = await http(stack, 'alice', 'POST', '/runs', body, headers);

    // Assess: hers, on ids that are not the guessed ones; a retry lands on the same ones.
    expect(viaWs).toMatchObject({ type: 'accepted' });
    expect(viaWs.sessionId).not.toBe(guessedSession);
    expect(viaWs.sessionId).toMatch(/^s-[0-9a-f]{32}$/);
    expect(viaHttp.status).toBe(202);
    expect(viaHttp.body.sessionId).not.toBe(guessedSession);
    expect(retried.body).toMatchObject({
      sessionId: viaHttp.body.sessionId,
      runId: viaHttp.body.runId,
    });
    const read = await http(stack, 'alice', 'GET', `/sessions/${viaWs.sessionId}`);
    expect(read.status).toBe(200);
  });

  it('a squatter on a client-chosen id gets an empty session of its own and nothing of the victim', async () => {
    // Prepare: bob takes the id alice will choose.
    const bob = await user('bob');
    const alice = await user('alice');
    bob.send(runOf('squat-2', 'my-chat', 'squatting'));
    await bob.terminal((await bob.answer('squat-2')).runId);

    // Act
    alice.send(runOf('victim-1', 'my-chat', `hello ${CANARY}`));
    const refused = await alice.answer('victim-1');
    await pause(500);

    // Assess: refused up front, so nothing of hers was ever stored there.
    expect(refused).toMatchObject({ type: 'error', code: 'not-found' });
    const session = await http(stack, 'bob', 'GET', '/sessions/my-chat');
    expect(session.body).toMatchObject({ turns: 1 });
    expect(JSON.stringify(bob.messages)).not.toContain(CANARY);
  });
});
