import { describe, expect, it } from 'vitest';
import { http, useLocalStack, useWsUsers } from './clients.js';

// The edge over the local stack's real HTTP and WebSocket: ids checked before any store, request
// ids and Idempotency-Keys that cannot be reused for another payload, one run record shape.
const stack = useLocalStack();
const user = useWsUsers(stack);

const LONG = 'x'.repeat(3_000);
const run = (input: string, extra: Record<string, unknown> = {}) => ({
  agent: 'demo',
  input,
  ...extra,
});

describe('ids at the edge', () => {
  it.each([
    ['GET', `/sessions/${LONG}`],
    ['GET', `/sessions/${LONG}/runs/r1`],
    ['GET', `/sessions/s1/runs/${LONG}`],
    ['POST', `/sessions/${LONG}/runs/r1/decisions`],
    ['POST', `/sessions/s1/runs/${LONG}/decisions`],
    ['GET', '/sessions/a%20b'],
  ])('%s %s… is a typed 400, not a 500', async (method, path) => {
    // Act
    const body = method === 'POST' ? { decisions: [{ id: 'c', status: 'approved' }] } : undefined;
    const response = await http(stack, 'alice', method, path, body);

    // Assess
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: 'error', code: 'invalid-request' });
    expect(response.body.message.length).toBeLessThan(200);
  });

  it('refuses a malformed Idempotency-Key instead of ignoring it', async () => {
    // Act
    const response = await http(stack, 'alice', 'POST', '/runs', run('hi'), {
      'idempotency-key': LONG,
    });

    // Assess
    expect(response).toMatchObject({ status: 400, body: { code: 'invalid-request' } });
  });
});

describe('reused request ids', () => {
  it('WebSocket: the same requestId and payload is the same run; another payload a request-conflict', async () => {
    // Prepare
    const alice = await user('alice');
    const message = { action: 'run', requestId: 'ws-dup', agent: 'demo', sessionId: 'dup-1' };

    // Act
    alice.send({ ...message, input: 'first' });
    const first = await alice.answer('ws-dup');
    await alice.terminal(first.runId);
    const count = alice.messages.length;
    alice.send({ ...message, input: 'first' });
    const again = await alice.next(
      (m) => alice.messages.indexOf(m) >= count && m.requestId === 'ws-dup',
    );
    alice.send({ ...message, input: 'something else' });
    const conflict = await alice.next(
      (m) => alice.messages.indexOf(m) > alice.messages.indexOf(again) && m.requestId === 'ws-dup',
    );
    const session = await http(stack, 'alice', 'GET', '/sessions/dup-1');

    // Assess
    expect(again).toEqual(first);
    expect(conflict).toMatchObject({ type: 'error', code: 'request-conflict' });
    expect(session.body.turns).toBe(1);
  });

  it('HTTP async: the same Idempotency-Key polls the same run; another body is a 409 at once', async () => {
    // Prepare
    const headers = { 'idempotency-key': 'http-async-1' };
    const body = run('async hello', { sessionId: 'idem-a', mode: 'async' });

    // Act
    const first = await http(stack, 'alice', 'POST', '/runs', body, headers);
    const again = await http(stack, 'alice', 'POST', '/runs', body, headers);
    const conflict = await http(
      stack,
      'alice',
      'POST',
      '/runs',
      { ...body, input: 'other' },
      headers,
    );
    const otherUser = await http(
      stack,
      'bob',
      'POST',
      '/runs',
      { ...body, sessionId: 'idem-b' },
      headers,
    );

    // Assess
    expect(first.status).toBe(202);
    expect(again).toEqual(first);
    expect(conflict).toMatchObject({ status: 409, body: { code: 'request-conflict' } });
    // Keys are per principal: bob's equal key is his own request.
    expect(otherUser.status).toBe(202);
    expect(otherUser.body.runId).not.toBe(first.body.runId);
  });

  it('HTTP sync: an Idempotency-Key returns the first reply without a second turn', async () => {
    // Prepare
    const headers = { 'idempotency-key': 'http-sync-1' };
    const body = run('sync hello', { sessionId: 'idem-s' });

    // Act
    const first = await http(stack, 'alice', 'POST', '/runs', body, headers);
    const again = await http(stack, 'alice', 'POST', '/runs', body, headers);
    const conflict = await http(
      stack,
      'alice',
      'POST',
      '/runs',
      { ...body, mode: 'async' },
      headers,
    );
    const session = await http(stack, 'alice', 'GET', '/sessions/idem-s');

    // Assess
    expect(first).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(again).toEqual(first);
    expect(conflict).toMatchObject({ status: 409, body: { code: 'request-conflict' } });
    expect(session.body.turns).toBe(1);
  });
});

describe('one run record shape', () => {
  const KEYS = [
    'agent',
    'createdAt',
    'input',
    'reply',
    'runId',
    'schemaVersion',
    'sessionId',
    'status',
    'updatedAt',
  ];

  it('GET /sessions/{id}/runs/{runId} answers a sync run, completed or paused, as for a queued one', async () => {
    // Prepare
    const alice = await user('alice');

    // Act: a sync run, a sync pause, and a pause over the WebSocket.
    const done = await http(stack, 'alice', 'POST', '/runs', run('hello', { sessionId: 'rec-1' }));
    const paused = await http(
      stack,
      'alice',
      'POST',
      '/runs',
      run('book a table for 2 at 8pm', { sessionId: 'rec-2' }),
    );
    alice.send({
      action: 'run',
      requestId: 'rec-ws',
      agent: 'demo',
      sessionId: 'rec-3',
      input: 'book a table for 2 at 8pm',
    });
    const accepted = await alice.answer('rec-ws');
    await alice.terminal(accepted.runId);
    const records = await Promise.all([
      http(stack, 'alice', 'GET', `/sessions/rec-1/runs/${done.body.runId}`),
      http(stack, 'alice', 'GET', `/sessions/rec-2/runs/${paused.body.runId}`),
      http(stack, 'alice', 'GET', `/sessions/rec-3/runs/${accepted.runId}`),
    ]);

    // Assess
    const [completed, syncPaused, wsPaused] = records.map((r) => r.body);
    expect(completed).toMatchObject({ status: 'completed', reply: done.body, agent: 'demo' });
    for (const record of [completed, syncPaused, wsPaused])
      expect(Object.keys(record).sort()).toEqual(KEYS);
    expect(Object.keys(syncPaused.reply).sort()).toEqual(Object.keys(wsPaused.reply).sort());
    expect(syncPaused.reply).toMatchObject({
      status: 'paused',
      interruptions: paused.body.interruptions,
      // Seq 0 is the run's terminal event (its stored run-paused, docs/protocol.md "The terminal
      // rule"): the resume continues past it.
      nextSeq: 1,
    });
  });
});
