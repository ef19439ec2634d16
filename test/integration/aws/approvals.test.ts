import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { createApprovalsHandler } from '../../../lib/aws/handlers/approvals.js';
import { drain } from '../../../lib/local/sqs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { payments, sampleEvent } from './setup.js';
import { connect, messageViewOf, newStack, send, settle, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

describe('approvals function', () => {
  it.each([
    ['a malformed body', '{"sessionId":'],
    ['a body without a principal', '{"sessionId":"s","runId":"r","decisions":[]}'],
    ['a decision for a session that does not exist', undefined],
  ])(
    'drops %s without a retry, queues nothing, counts it (ApprovalsRefused)',
    async (_label, body) => {
      // Prepare
      const stack = await newStack(server, endpoints);
      const event = sampleEvent('sqs/approvals-queue.json');
      if (body !== undefined) event.Records[0].body = body;

      const lines: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
        lines.push(String(chunk));
        return true;
      });

      // Act
      const result = await stack.handlers.approvals(event).finally(() => write.mockRestore());

      // Assess: one EMF count per dropped decision (infra's ApprovalsRefused alarm reads it).
      const counted = lines
        .flatMap((line) => line.split('\n'))
        .filter((line) => line.includes('"ApprovalsRefused"'))
        .map((line) => JSON.parse(line));
      expect(counted).toHaveLength(1);
      expect(counted[0]).toMatchObject({ message: 'approval refused', ApprovalsRefused: 1 });
      expect(counted[0]._aws.CloudWatchMetrics[0].Metrics).toEqual([
        { Name: 'ApprovalsRefused', Unit: 'Count' },
      ]);
      expect(result.batchItemFailures).toEqual([]);
      const queued = await stack.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: stack.queues.run }),
      );
      expect(queued.Messages ?? []).toEqual([]);
    },
  );
});

describe('approvals function without a Runtime (as functions/approvals.ts builds it)', () => {
  it('queues the resume a configured approver decided, for the owner; drops a stranger', async () => {
    // Prepare: a run of alice's paused on the payment; the approvals handler sees only stores.
    payments.length = 0;
    const stack = await newStack(server, endpoints, { APPROVER_PRINCIPALS: 'back-office' });
    const view = messageViewOf(stack.deployed);
    expect('runtime' in view).toBe(false);
    const lean = createApprovalsHandler(async () => view, { clients: stack.clients });
    await connect(stack, 'conn-a', 'alice');
    server.push(
      {
        toolCalls: [
          { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } },
        ],
      },
      { text: 'Paid Bob.' },
    );
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-pay',
      agent: 'payer',
      sessionId: 's-lean',
      input: 'Pay Bob 10',
    });
    await settle(stack);
    const runId = endpoints.connections.messages('conn-a')[0].runId as string;
    const decide = (principal: string, requestId: string) =>
      stack.sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.queues.approvals,
          MessageBody: JSON.stringify({
            sessionId: 's-lean',
            runId,
            principal,
            requestId,
            decisions: [{ id: 'call_pay_1', status: 'approved' }],
          }),
        }),
      );

    // Act
    await decide('mallory', 'approval-stranger');
    await decide('back-office', 'approval-office');
    const handled = await drain(stack.sqs, stack.queues.approvals, lean as never);
    const jobs = await stack.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.queues.run, MaxNumberOfMessages: 10 }),
    );

    // Assess: one job, the approver deciding for the owner, naming the paused run's agent.
    expect(handled).toBe(2);
    const bodies = (jobs.Messages ?? []).map((m) => JSON.parse(m.Body as string));
    expect(bodies).toEqual([
      expect.objectContaining({
        kind: 'resume',
        principal: 'alice',
        agent: 'payer',
        sessionId: 's-lean',
        runId,
        requestId: 'approval-office',
      }),
    ]);
    expect(payments).toEqual([]);
  });
});
