import { beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from '../aws/setup.js';

// The approvals inbox over the real HTTP handler and DynamoDB (dynalite): GET /approvals and the
// decisions route, tried as an attacker would; two approvers racing for one run.
const server = useScriptedModelServer();
const APPROVERS = { APPROVER_PRINCIPALS: 'approver-1,approver-2' };
beforeEach(() => {
  payments.length = 0;
});

async function api() {
  const deployed = await deployment(server, APPROVERS);
  const handler = createHttpHandler(async () => deployed);
  return async (event: unknown) => {
    const result = await handler(event as never);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
}

type Call = Awaited<ReturnType<typeof api>>;
type SampleEvent = ReturnType<typeof sampleEvent>;

function as(event: SampleEvent, sub: string | undefined) {
  if (sub === undefined) delete event.requestContext.authorizer;
  else event.requestContext.authorizer.jwt.claims.sub = sub;
  return event;
}

function get(path: string, sub: string | undefined, query: Record<string, string> = {}) {
  const event = sampleEvent('http/get-session.json');
  event.rawPath = path;
  event.requestContext.http.path = path;
  event.queryStringParameters = query;
  return as(event, sub);
}

function decide(sub: string | undefined, sessionId: string, runId: string, body: unknown) {
  const event = sampleEvent('http/post-decisions.json', { RUN_ID: runId });
  const path = `/sessions/${sessionId}/runs/${runId}/decisions`;
  event.rawPath = path;
  event.requestContext.http.path = path;
  event.body = typeof body === 'string' ? body : JSON.stringify(body);
  return as(event, sub);
}

const approve = (amount?: number) => ({
  decisions: [
    {
      id: 'call_pay_1',
      status: 'approved',
      ...(amount === undefined ? {} : { arguments: { to: 'bob', amount } }),
    },
  ],
});

/** A paused payment of `sub`'s in `sessionId`: its run id. */
async function pausedPayment(call: Call, sub: string, sessionId: string, amount = 10) {
  server.push({
    toolCalls: [{ id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount } }],
  });
  const event = as(sampleEvent('http/post-runs.json'), sub);
  event.body = JSON.stringify({ agent: 'payer', sessionId, input: `Pay Bob ${amount}` });
  const paused = await call(event);
  expect(paused.body.status, JSON.stringify(paused.body)).toBe('paused');
  return paused.body.runId as string;
}

const listed = (body: { approvals: { sessionId: string; runId: string }[] }) =>
  body.approvals.map((a) => a.sessionId);

describe('GET /approvals', () => {
  it('gives an approver every paused run oldest first with its call, a principal only its own', async () => {
    // Prepare
    const call = await api();
    const alices = await pausedPayment(call, 'alice', 'inbox-a1', 10);
    await pausedPayment(call, 'bob', 'inbox-b1', 20);
    await pausedPayment(call, 'alice', 'inbox-a2', 30);

    // Act
    const all = await call(get('/approvals', 'approver-1'));
    const first = await call(get('/approvals', 'approver-1', { limit: '2' }));
    const second = await call(
      get('/approvals', 'approver-1', { limit: '2', cursor: first.body.next }),
    );
    const alice = await call(get('/approvals', 'alice'));
    const mallory = await call(get('/approvals', 'mallory'));
    // Mallory replays the approver's cursor: it moves only within her own (empty) partition.
    const stolen = await call(get('/approvals', 'mallory', { cursor: first.body.next }));

    // Assess
    expect(all.status).toBe(200);
    expect(listed(all.body)).toEqual(['inbox-a1', 'inbox-b1', 'inbox-a2']);
    expect(all.body.approver).toBe(true);
    expect(all.body.approvals[0]).toMatchObject({
      sessionId: 'inbox-a1',
      runId: alices,
      agent: 'payer',
      owner: 'alice',
      interruptions: [
        {
          id: 'call_pay_1',
          kind: 'tool-approval',
          toolName: 'send_payment',
          arguments: { to: 'bob', amount: 10 },
        },
      ],
    });
    expect(all.body.approvals[0].state).toBeUndefined();
    expect(listed(first.body)).toEqual(['inbox-a1', 'inbox-b1']);
    expect(listed(second.body)).toEqual(['inbox-a2']);
    expect(second.body.next).toBeUndefined();
    expect(listed(alice.body)).toEqual(['inbox-a1', 'inbox-a2']);
    expect(alice.body.approver).toBe(false);
    expect(mallory.body).toEqual({ approvals: [], approver: false });
    expect(stolen.body).toEqual({ approvals: [], approver: false });
  });

  it('refuses no token, bad limits and cursors; decided and cleared runs leave the inbox', async () => {
    // Prepare
    const call = await api();
    const decided = await pausedPayment(call, 'alice', 'inbox-d1');
    await pausedPayment(call, 'alice', 'inbox-c1');
    await pausedPayment(call, 'alice', 'inbox-k1');
    server.push({ text: 'Paid Bob.' });
    expect((await call(decide('alice', 'inbox-d1', decided, approve()))).status).toBe(200);
    const clear = get('/sessions/inbox-c1', 'alice');
    clear.requestContext.http.method = 'DELETE';
    expect((await call(clear)).status).toBe(200);

    // Act
    const anonymous = await call(get('/approvals', undefined));
    const queries: Record<string, string>[] = [
      { limit: '0' },
      { limit: '101' },
      { limit: '1e2' },
      { cursor: 'not a cursor!' },
      { cursor: Buffer.from('[1,"inbox-k1"]').toString('base64url') },
      { cursor: Buffer.from('[1,"../x","r"]').toString('base64url') },
      { cursor: Buffer.from('{"pk":"SESSION#!approvals"}').toString('base64url') },
      { cursor: 'A'.repeat(700) },
    ];
    const bad = await Promise.all(queries.map((q) => call(get('/approvals', 'approver-1', q))));
    const inbox = await call(get('/approvals', 'approver-1'));

    // Assess
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    for (const answer of bad) {
      expect(answer).toMatchObject({ status: 400, body: { code: 'invalid-cursor' } });
    }
    expect(listed(inbox.body)).toEqual(['inbox-k1']);
  });
});

describe('POST /sessions/{id}/runs/{runId}/decisions from the inbox', () => {
  it('lets an approver decide for the owner: the resume runs as the owner, once', async () => {
    // Prepare
    const call = await api();
    const runId = await pausedPayment(call, 'alice', 'inbox-e1', 10);
    server.push({ text: 'Paid Bob 12.' });

    // Act: the approver edits the amount before approving.
    const done = await call(decide('approver-1', 'inbox-e1', runId, approve(12)));
    const record = await call(get(`/sessions/inbox-e1/runs/${runId}`, 'alice'));
    const inbox = await call(get('/approvals', 'approver-1'));
    const approverReads = await call(get(`/sessions/inbox-e1/runs/${runId}`, 'approver-1'));

    // Assess
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', text: 'Paid Bob 12.' });
    expect(payments).toEqual([{ to: 'bob', amount: 12 }]);
    expect(record.body).toMatchObject({ status: 'completed' });
    expect(inbox.body.approvals).toEqual([]);
    // Deciding grants no reading: the session stays the owner's.
    expect(approverReads).toMatchObject({ status: 404, body: { code: 'not-found' } });
  });

  it('of two approvers deciding at once, one wins and the other gets run-already-resumed', async () => {
    const call = await api();
    for (let round = 0; round < 3; round++) {
      // Prepare
      payments.length = 0;
      const sessionId = `inbox-race-${round}`;
      const runId = await pausedPayment(call, 'alice', sessionId, 10);
      server.push({ text: 'Paid.' });

      // Act: each approves a different amount at the same moment.
      const answers = await Promise.all([
        call(decide('approver-1', sessionId, runId, approve(11))),
        call(decide('approver-2', sessionId, runId, approve(22))),
      ]);

      // Assess: one 200, one 409; exactly the winner's payment was made.
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, JSON.stringify(answers.map((a) => a.body))).toEqual([200, 409]);
      const loser = answers.find((a) => a.status === 409);
      expect(loser?.body.code).toBe('run-already-resumed');
      expect(loser?.body.message).toMatch(/already (resuming|decided)/);
      const winner = answers.findIndex((a) => a.status === 200);
      expect(payments).toEqual([{ to: 'bob', amount: winner === 0 ? 11 : 22 }]);
      // Late: the run was decided; the answer says so, nothing runs.
      const late = await call(decide('approver-1', sessionId, runId, approve(33)));
      expect(late).toMatchObject({ status: 409, body: { code: 'run-already-resumed' } });
      expect(late.body.message).toContain('completed');
      expect(payments).toHaveLength(1);
    }
  });

  it("refuses another principal's decision, guessed ids and malformed or oversized bodies; nothing runs", async () => {
    // Prepare
    const call = await api();
    const runId = await pausedPayment(call, 'alice', 'inbox-x1', 10);
    const huge = JSON.stringify({
      decisions: [{ id: 'call_pay_1', status: 'denied', message: 'x'.repeat(3_000_000) }],
    });

    // Act
    const answers = {
      anonymous: await call(decide(undefined, 'inbox-x1', runId, approve())),
      mallory: await call(decide('mallory', 'inbox-x1', runId, approve(1000))),
      guessedRun: await call(decide('approver-1', 'inbox-x1', 'no-such-run', approve())),
      guessedSession: await call(decide('mallory', 'no-such-session', runId, approve())),
      badId: await call(decide('approver-1', 'inbox-x1', 'x%20y', approve())),
      badJson: await call(decide('approver-1', 'inbox-x1', runId, '{"decisions": [')),
      wrongCall: await call(
        decide('approver-1', 'inbox-x1', runId, {
          decisions: [{ id: 'call_other', status: 'approved' }],
        }),
      ),
      extraKey: await call(
        decide('approver-1', 'inbox-x1', runId, { decisions: [], __proto__: { admin: true } }),
      ),
      huge: await call(decide('approver-1', 'inbox-x1', runId, huge)),
    };
    const inbox = await call(get('/approvals', 'approver-1'));

    // Assess
    const codes = Object.fromEntries(
      Object.entries(answers).map(([k, a]) => [k, `${a.status} ${a.body.code}`]),
    );
    expect(codes).toEqual({
      anonymous: '401 unauthorized',
      mallory: '404 not-found',
      guessedRun: '404 paused-run-not-found',
      guessedSession: '404 not-found',
      badId: '400 invalid-request',
      badJson: '400 bad-json',
      wrongCall: '400 invalid-decisions',
      extraKey: '400 invalid-message',
      huge: '413 too-large',
    });
    expect(payments).toEqual([]);
    expect(listed(inbox.body)).toEqual(['inbox-x1']);
    expect(JSON.stringify(answers.mallory.body)).not.toContain('send_payment');
  });
});
