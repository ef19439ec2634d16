import { beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { type DynamoRequest, throttleNext } from '../../helpers/faults/dynamo-proxy.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from '../aws/setup.js';
import { useDynamoProxy } from '../aws/stack.js';

// The pending-approval index under a throttled table (the fault proxy in front of dynalite): a
// paused run is never missing from the inbox, and a decided one never stays in it.
const server = useScriptedModelServer();
const proxy = useDynamoProxy();
const APPROVERS = { APPROVER_PRINCIPALS: 'approver-1' };
beforeEach(() => {
  payments.length = 0;
});

const indexWrite = (r: DynamoRequest) => r.operation === 'PutItem' && r.body.includes('!approvals');
const indexDelete = (r: DynamoRequest) =>
  r.operation === 'BatchWriteItem' && r.body.includes('!approvals');

async function api() {
  const deployed = await deployment(server, APPROVERS, { dynamoEndpoint: proxy.url });
  const handler = createHttpHandler(async () => deployed);
  const call = async (event: unknown) => {
    const result = await handler(event as never);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
  return { deployed, call };
}

function event(sample: string, sub: string, path: string, body?: unknown) {
  const e = sampleEvent(sample, { RUN_ID: 'x' });
  e.rawPath = path;
  e.requestContext.http.path = path;
  e.requestContext.authorizer.jwt.claims.sub = sub;
  e.queryStringParameters = {};
  if (body !== undefined) e.body = JSON.stringify(body);
  return e;
}

const pay = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };
const runBody = (sessionId: string) => ({ agent: 'payer', sessionId, input: 'Pay Bob 10' });
const approve = { decisions: [{ id: 'call_pay_1', status: 'approved' }] };

describe('the pending-approval index under faults', () => {
  it('a decided run whose index delete fails through every SDK attempt leaves the inbox anyway', async () => {
    // Prepare
    const { call } = await api();
    server.push({ toolCalls: [pay] }, { text: 'Paid Bob.' });
    const paused = await call(event('http/post-runs.json', 'alice', '/runs', runBody('f-1')));
    expect(paused.body.status).toBe('paused');
    proxy.setRule(throttleNext(indexDelete, 1_000));

    // Act
    const path = `/sessions/f-1/runs/${paused.body.runId}/decisions`;
    const decided = await call(event('http/post-decisions.json', 'approver-1', path, approve));
    const inbox = await call(event('http/get-session.json', 'approver-1', '/approvals'));

    // Assess: the delete was tried and failed; the stale entry is skipped on read.
    expect(decided.body).toMatchObject({ status: 'completed', text: 'Paid Bob.' });
    expect(proxy.log.some((r) => indexDelete(r) && r.throttled)).toBe(true);
    expect(payments).toHaveLength(1);
    expect(inbox.body.approvals).toEqual([]);
  });

  it('a run whose index write fails through every SDK attempt is not paused (nothing unlisted waits)', async () => {
    // Prepare
    const { call, deployed } = await api();
    server.push({ toolCalls: [pay] });
    proxy.setRule(throttleNext(indexWrite, 1_000));

    // Act
    const run = await call(event('http/post-runs.json', 'alice', '/runs', runBody('f-2')));
    proxy.setRule(undefined);
    const inbox = await call(event('http/get-session.json', 'approver-1', '/approvals'));

    // Assess
    expect(run.status, JSON.stringify(run.body)).toBeGreaterThanOrEqual(500);
    expect(await deployed.runtime.pausedRuns?.list('f-2')).toEqual([]);
    expect(inbox.body.approvals).toEqual([]);
    expect(payments).toEqual([]);
  });
});
