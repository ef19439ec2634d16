import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { createInvokeHandler } from '../../../lib/aws/handlers/invoke.js';
import type { DynamoRunRecordStore } from '../../../lib/stores/dynamodb/index.js';
import { Redactor } from '../../../lib/tracing/redact.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, sampleEvent } from '../aws/setup.js';

// A provider (or a proxy in front of it) that echoes the caller's key in its error text: the
// text reaches HTTP bodies, invoke answers and stored run records only through the redactor.
const server = useScriptedModelServer();
const CANARY = 'canary-model-key-7f3a9c';
const echoKey = { error: { status: 401, message: `Incorrect API key provided: ${CANARY}.` } };

const runEvent = (body: unknown) => {
  const event = sampleEvent('http/post-runs.json');
  event.body = JSON.stringify(body);
  // A known request id, so the test can find the failed run's record.
  event.headers['idempotency-key'] = 'k1';
  return event;
};

async function syncRun(redactor?: Redactor) {
  const deployed = await deployment(server);
  const handler = createHttpHandler(async () => deployed, undefined, redactor ? { redactor } : {});
  server.push(echoKey);
  const result = await handler(runEvent({ agent: 'payer', sessionId: 's-key', input: 'Hi' }));
  const body = JSON.parse(String(result.body));
  return { deployed, handler, status: result.statusCode, body };
}

/** The one run record of a session: run ids are a keyed HMAC the test cannot compute. */
async function onlyRunOf(runs: DynamoRunRecordStore, sessionId: string) {
  const { Items } = await runs.doc.send(
    new QueryCommand({
      TableName: runs.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
      ExpressionAttributeValues: { ':pk': `SESSION#${sessionId}`, ':run': 'RUN#' },
    }),
  );
  expect(Items).toHaveLength(1);
  return runs.get(sessionId, String(Items?.[0]?.sk).slice('RUN#'.length));
}

describe('provider error text leaves through the redactor', () => {
  it('without a redactor the canary would reach the client (the test can fail)', async () => {
    const { body } = await syncRun();
    expect(body.message).toContain(CANARY);
  });

  it('hides the echoed key in the HTTP body and the stored run record', async () => {
    // Prepare
    const redactor = new Redactor({ secrets: [CANARY] });

    // Act
    const { deployed, status, body } = await syncRun(redactor);
    const record = await onlyRunOf(deployed.runs, 's-key');

    // Assess
    expect(status).toBeGreaterThanOrEqual(400);
    expect(body.code).toMatch(/^model-/);
    expect(JSON.stringify(body)).not.toContain(CANARY);
    expect(record).toMatchObject({ status: 'failed', error: { code: body.code } });
    expect(JSON.stringify(record)).not.toContain(CANARY);
  });

  it('hides the echoed key in an invoke answer', async () => {
    // Prepare
    const deployed = await deployment(server);
    const redactor = new Redactor({ secrets: [CANARY] });
    const invoke = createInvokeHandler(async () => deployed, undefined, { redactor });
    server.push(echoKey);

    // Act
    const answer = await invoke({
      action: 'run',
      agent: 'payer',
      sessionId: 's-key-2',
      input: 'Hi',
      principal: 'user-1',
    });

    // Assess
    expect(answer).toMatchObject({ type: 'error', code: expect.stringMatching(/^model-/) });
    expect(JSON.stringify(answer)).not.toContain(CANARY);
  });
});
