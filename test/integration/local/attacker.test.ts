import { describe, expect, it } from 'vitest';
import { sendApproval } from '../../../lib/local/approve.js';
import { http, pause, useLocalStack, useWsUsers, WsUser } from './clients.js';

// Mallory against alice over the local stack's real WebSocket, HTTP, invoke and approvals
// queue. The offline model echoes the user's words, so a canary in alice's input would show in
// anything of hers that reached mallory.
const stack = useLocalStack();
const user = useWsUsers(stack);

const CANARY = 'ALICE-CANARY-7f3a';
const runOf = (requestId: string, sessionId: string, input = `hello ${CANARY}`) => ({
  action: 'run',
  requestId,
  agent: 'demo',
  sessionId,
  input,
});

/** Nothing mallory ever received mentions alice's canary or carries events of her sessions. */
function expectNothingOfAlice(mallory: WsUser, aliceSessions: string[]): void {
  expect(JSON.stringify(mallory.messages)).not.toContain(CANARY);
  for (const sessionId of aliceSessions) expect(mallory.eventSessions().has(sessionId)).toBe(false);
}

/** Alice's session with a paused run (the demo's booking asks a person first). */
async function alicePaused(alice: WsUser, sessionId: string) {
  alice.send(runOf(`${sessionId}-r`, sessionId, `book a table for 2 at 8pm ${CANARY}`));
  const accepted = await alice.answer(`${sessionId}-r`);
  const end = await alice.terminal(accepted.runId);
  const paused = end.events.at(-1);
  expect(paused.type).toBe('run-paused');
  return { runId: accepted.runId as string, callId: paused.interruptions[0].id as string };
}

describe('attacker over the local stack', () => {
  it('pre-subscribing to a session that does not exist yet gets not-found and none of its events', async () => {
    // Prepare
    const mallory = await user('mallory');
    const alice = await user('alice');

    // Act: mallory guesses the id before alice uses it.
    mallory.send({ action: 'subscribe', requestId: 'pre-sub', sessionId: 'pre-1' });
    const refused = await mallory.answer('pre-sub');
    alice.send(runOf('pre-r1', 'pre-1'));
    const accepted = await alice.answer('pre-r1');
    await alice.terminal(accepted.runId);
    await pause(300);

    // Assess
    expect(refused).toMatchObject({ type: 'error', code: 'not-found' });
    expect(accepted).toMatchObject({ type: 'accepted', sessionId: 'pre-1' });
    expectNothingOfAlice(mallory, ['pre-1']);
  });

  it('racing another user’s first run on one id: exactly one owns it, the other hears not-found', async () => {
    // Prepare
    const mallory = await user('mallory');
    const alice = await user('alice');

    // Act: both send at once.
    alice.send(runOf('race-a', 'race-1'));
    mallory.send(runOf('race-m', 'race-1', 'mallory here'));
    const [a, m] = await Promise.all([alice.answer('race-a'), mallory.answer('race-m')]);
    const winner = a.type === 'accepted' ? alice : mallory;
    const loser = winner === alice ? mallory : alice;
    const won = a.type === 'accepted' ? a : m;
    await winner.terminal(won.runId);
    await pause(300);

    // Assess
    expect([a.type, m.type].sort()).toEqual(['accepted', 'error']);
    expect((a.type === 'error' ? a : m).code).toBe('not-found');
    expect(loser.eventSessions().has('race-1')).toBe(false);
    if (winner === alice) expectNothingOfAlice(mallory, ['race-1']);
  });

  it('right after alice’s accepted, mallory’s run, resume, subscribe and unsubscribe all fail', async () => {
    // Prepare
    const mallory = await user('mallory');
    const alice = await user('alice');

    // Act
    alice.send(runOf('after-a', 'after-1'));
    const accepted = await alice.answer('after-a');
    const { runId } = accepted;
    mallory.send({ action: 'subscribe', requestId: 'after-s', sessionId: 'after-1' });
    mallory.send(runOf('after-r', 'after-1', 'mallory run'));
    mallory.send({
      action: 'resume',
      requestId: 'after-d',
      sessionId: 'after-1',
      runId,
      decisions: [{ id: 'x', status: 'approved' }],
    });
    mallory.send({ action: 'unsubscribe', requestId: 'after-u', sessionId: 'after-1' });
    const answers = await Promise.all(
      ['after-s', 'after-r', 'after-d', 'after-u'].map((id) => mallory.answer(id)),
    );
    await alice.terminal(runId);
    await pause(300);

    // Assess
    for (const answer of answers)
      expect(answer).toMatchObject({ type: 'error', code: 'not-found' });
    expectNothingOfAlice(mallory, ['after-1']);
  });

  it('a reused requestId of another user is another request: both run (no cross-user dedup)', async () => {
    // Prepare
    const mallory = await user('mallory');
    const alice = await user('alice');

    // Act: the same requestId, in each one's own session, within the dedup window.
    alice.send(runOf('same-id', 'dedup-a'));
    mallory.send(runOf('same-id', 'dedup-m', 'mallory dedup'));
    const [a, m] = await Promise.all([alice.answer('same-id'), mallory.answer('same-id')]);
    const [endA, endM] = await Promise.all([alice.terminal(a.runId), mallory.terminal(m.runId)]);

    // Assess
    expect(endA.events.at(-1).type).toBe('run-finished');
    expect(endM.events.at(-1).type).toBe('run-finished');
    expectNothingOfAlice(mallory, ['dedup-a']);
  });

  it('every HTTP route answers mallory for alice’s session exactly as for one that does not exist', async () => {
    // Prepare
    const alice = await user('alice');
    const { runId, callId } = await alicePaused(alice, 'http-1');
    const decisions = { decisions: [{ id: callId, status: 'approved' }] };
    const reads = (session: string, run: string) =>
      [
        ['GET', `/sessions/${session}`],
        ['GET', `/sessions/${session}/runs/${run}`],
        ['POST', `/sessions/${session}/runs/${run}/decisions`, decisions],
      ] as const;
    const runs = [
      ['POST', '/runs', { agent: 'demo', sessionId: 'http-1', input: 'mallory sync' }],
      ['POST', '/runs', { agent: 'demo', sessionId: 'http-1', input: 'mallory', mode: 'async' }],
    ] as const;

    // Act
    const against = [];
    const absent = [];
    for (const [method, path, body] of reads('http-1', runId)) {
      against.push(await http(stack, 'mallory', method, path, body));
    }
    for (const [method, path, body] of reads('http-none', runId)) {
      absent.push(await http(stack, 'mallory', method, path, body));
    }
    const ran = [];
    for (const [method, path, body] of runs)
      ran.push(await http(stack, 'mallory', method, path, body));
    const own = await http(stack, 'alice', 'GET', `/sessions/http-1/runs/${runId}`);

    // Assess: the same status and code, and a message that differs only by the session id.
    for (const [i, response] of against.entries()) {
      const other = absent[i] as { status: number; body: any };
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not-found');
      expect(other.status).toBe(404);
      expect(response.body.message.replaceAll('http-1', 'X')).toBe(
        other.body.message.replaceAll('http-none', 'X'),
      );
    }
    for (const response of ran)
      expect(response).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect(JSON.stringify([against, ran])).not.toContain(CANARY);
    // Nothing happened to alice's run: still paused, waiting for her.
    expect(own).toMatchObject({ status: 200, body: { status: 'paused', runId } });
  });

  it('mallory’s decisions through invoke and the approvals queue resume nothing of alice’s', async () => {
    // Prepare
    const alice = await user('alice');
    const { runId, callId } = await alicePaused(alice, 'decide-1');
    const decisions = [{ id: callId, status: 'approved' }];

    // Act
    const invoked = await stack.invoke({
      action: 'resume',
      sessionId: 'decide-1',
      runId,
      decisions,
      principal: 'mallory',
    });
    const read = await stack.invoke({
      action: 'run',
      agent: 'demo',
      sessionId: 'decide-1',
      input: 'mallory invoke',
      principal: 'mallory',
    });
    await sendApproval(stack.queues.approvals, {
      sessionId: 'decide-1',
      runId,
      decisions,
      principal: 'mallory',
      requestId: 'mallory-approval',
    });
    await pause(1_500);
    const record = await http(stack, 'alice', 'GET', `/sessions/decide-1/runs/${runId}`);

    // Assess
    expect(invoked).toMatchObject({ type: 'error', code: 'not-found' });
    expect(read).toMatchObject({ type: 'error', code: 'not-found' });
    expect(JSON.stringify([invoked, read])).not.toContain(CANARY);
    expect(record.body).toMatchObject({ status: 'paused', runId });
  });

  it('a configured approver decides alice’s run for her, and only alice sees its events', async () => {
    // Prepare
    const mallory = await user('mallory');
    const alice = await user('alice');
    const { runId, callId } = await alicePaused(alice, 'approve-1');
    const before = alice.messages.length;

    // Act
    await sendApproval(stack.queues.approvals, {
      sessionId: 'approve-1',
      runId,
      decisions: [{ id: callId, status: 'approved' }],
      principal: 'back-office',
      requestId: 'bo-approval',
    });
    const done = await alice.next(
      (m) =>
        alice.messages.indexOf(m) >= before &&
        m.type === 'events' &&
        m.events.some((e: any) => e.type === 'run-finished'),
    );

    // Assess
    expect(done.runId).toBe(runId);
    expectNothingOfAlice(mallory, ['approve-1']);
  });

  it('refuses a WebSocket and HTTP token whose sub is empty or over 1,024 characters', async () => {
    // Act + Assess
    for (const sub of ['', 'x'.repeat(1025)]) {
      // The authorizer's Deny: 403, as API Gateway answers it.
      await expect(WsUser.connect(stack, sub)).rejects.toThrow(/403/);
      const refused = await http(stack, sub, 'GET', '/agents');
      expect(refused.status).toBe(401);
    }
  });

  it('an invoke naming no principal is refused (no INVOKE_PRINCIPAL configured)', async () => {
    // Act
    const refused = await stack.invoke({ action: 'run', agent: 'demo', input: 'who am I?' });

    // Assess
    expect(refused).toMatchObject({ type: 'error', code: 'unauthorized' });
  });
});
