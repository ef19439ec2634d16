import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { sampleEvent } from './setup.js';
import { newStack, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

describe('approvals function', () => {
  it.each([
    ['a malformed body', '{"sessionId":'],
    ['a body without a principal', '{"sessionId":"s","runId":"r","decisions":[]}'],
    ['a decision for a session that does not exist', undefined],
  ])('drops %s without a retry and queues nothing', async (_label, body) => {
    // Prepare
    const stack = await newStack(server, endpoints);
    const event = sampleEvent('sqs/approvals-queue.json');
    if (body !== undefined) event.Records[0].body = body;

    // Act
    const result = await stack.handlers.approvals(event);

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    const queued = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queues.run }));
    expect(queued.Messages ?? []).toEqual([]);
  });
});
