import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { drain } from '../../../lib/local/sqs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { sampleEvent } from './setup.js';
import { newStack, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

async function setup() {
  const stack = await newStack(server, endpoints);
  const handler = createHttpHandler(async () => stack.deployed, undefined, { sqs: stack.sqs });
  const call = async (event: any) => {
    const result = await handler(event);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
  const post = (input: string, key?: string) => {
    const event = sampleEvent('http/post-runs.json');
    event.body = JSON.stringify({ agent: 'payer', sessionId: 'async-1', input, mode: 'async' });
    if (key) event.headers['idempotency-key'] = key;
    return call(event);
  };
  const poll = (runId: string) =>
    call(sampleEvent('http/get-run.json', { 'http-session-1': 'async-1', RUN_ID: runId }));
  const work = () => drain(stack.sqs, stack.queues.run, stack.handlers.worker as any);
  return { post, poll, work };
}

describe('HTTP async runs', () => {
  it('queues a run (202), the worker runs it, and polling shows queued then completed', async () => {
    // Prepare
    const { post, poll, work } = await setup();
    server.push({ text: 'Done later.' });

    // Act
    const accepted = await post('Hello');
    const before = await poll(accepted.body.runId);
    await work();
    const after = await poll(accepted.body.runId);

    // Assess
    expect(accepted).toMatchObject({
      status: 202,
      body: { status: 'queued', sessionId: 'async-1' },
    });
    expect(accepted.body.poll).toBe(`/sessions/async-1/runs/${accepted.body.runId}`);
    expect(before).toMatchObject({ status: 200, body: { status: 'queued' } });
    expect(after).toMatchObject({
      status: 200,
      body: { status: 'completed', reply: { text: 'Done later.' } },
    });
  });

  it('a retried POST with the same Idempotency-Key queues one run', async () => {
    // Prepare
    const { post, poll, work } = await setup();
    server.push({ text: 'Once.' }, { text: 'Twice?!' });

    // Act
    const first = await post('Hello', 'key-1');
    const second = await post('Hello', 'key-1');
    await work();

    // Assess
    expect(second.body.runId).toBe(first.body.runId);
    expect(server.requests).toHaveLength(1);
    expect((await poll(first.body.runId)).body).toMatchObject({ status: 'completed' });
  });
});
