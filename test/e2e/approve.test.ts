import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSqsClient } from '../../lib/local/sqs.js';
import {
  expectFriendly,
  npmRun,
  npmStart,
  openSocket,
  type StartedStack,
  untilRunEnds,
  userEnv,
} from './helpers/cli.js';

// `npm run approve` against `npm start`: it waits for the outcome and fails clearly on a refusal.
let stack: StartedStack;

beforeAll(async () => {
  stack = await npmStart();
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

/** A demo run paused on its booking: its ids. */
async function pausedBooking(sessionId: string): Promise<{ runId: string; callId: string }> {
  const ws = await openSocket(stack.wsUrl, stack.token);
  const done = untilRunEnds(ws);
  ws.send(
    JSON.stringify({
      action: 'run',
      requestId: `${sessionId}-r`,
      agent: 'demo',
      sessionId,
      input: 'book a table for 3 at 9pm',
    }),
  );
  const pause = (await done).flatMap((m) => m.events ?? []).at(-1);
  ws.close();
  expect(pause).toMatchObject({ type: 'run-paused' });
  return { runId: pause.runId, callId: pause.interruptions[0].id };
}

function approve(args: string[], extra: Record<string, string> = {}) {
  return npmRun(
    ['approve', '--', '--api', stack.http, '--token', stack.token, stack.approvalsQueue, ...args],
    userEnv(extra),
  );
}

/**
 * Until no decision is left on the approvals queue (none visible, in flight or delayed): the
 * approvals function has taken each one and is done with it. A state, not a guess at a time.
 */
async function approvalsDrained(budgetMs = 60_000): Promise<void> {
  const sqs = localSqsClient(new URL(stack.approvalsQueue).origin);
  const until = Date.now() + budgetMs;
  try {
    for (;;) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: stack.approvalsQueue,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      const left = Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
      if (left === 0) return;
      if (Date.now() > until)
        throw new Error(`approvals queue not drained: ${JSON.stringify(Attributes)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    sqs.destroy();
  }
}

describe('npm run approve (waits for the outcome)', () => {
  it('prints the finished run’s reply', async () => {
    // Prepare
    const { runId, callId } = await pausedBooking('approve-ok');

    // Act
    const ran = await approve(['approve-ok', runId, callId, 'approved']);

    // Assess
    expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toContain(`sent: approved ${callId} of run ${runId}`);
    expect(ran.stdout).toMatch(/^completed: Booked a table for 3 at 9pm/m);
  }, 120_000);

  it('refuses a call id the run does not wait for, before sending anything', async () => {
    // Prepare
    const { runId } = await pausedBooking('approve-wrong-id');

    // Act
    const ran = await approve(['approve-wrong-id', runId, 'call_pay', 'approved']);

    // Assess
    expect(ran.code).toBe(1);
    const printed = expectFriendly(ran);
    expect(printed).toMatch(/^error: run \S+ waits for \S+, not for call_pay$/m);
    expect(printed).toMatch(/^hint: /m);
    expect(ran.stdout).not.toContain('sent:');
  }, 120_000);

  it('fails in one line when the stack refuses the decision (a principal it does not trust)', async () => {
    // Prepare
    const { runId, callId } = await pausedBooking('approve-refused');

    // Act: `mallory` is neither the owner nor an approver: the approvals function drops it.
    // She denies: had her decision been acted on, the run would have ended denied.
    const ran = await approve(['approve-refused', runId, callId, 'denied', 'mallory'], {
      AGENT_KERNEL_APPROVE_WAIT_MS: '1000',
    });

    // Assess: the CLI gives up in one line once its wait is over.
    expect(ran.code).toBe(1);
    const printed = expectFriendly(ran);
    expect(printed).toMatch(
      /^error: the stack did not act on \S+ within 1 s: run \S+ is still paused$/m,
    );
    expect(printed).toContain('APPROVER_PRINCIPALS');
    // That nothing happened is proven by what came after, not by the wait: once the approvals
    // function is done with mallory's decision (a resume job it made would be on the run
    // queue, ahead of any later one of this session), the owner's approval is the one the run
    // resumes with.
    await approvalsDrained();
    const owner = await approve(['approve-refused', runId, callId, 'approved']);
    expect(owner.code, `${owner.stdout}\n${owner.stderr}`).toBe(0);
    expect(owner.stdout).toMatch(/^completed: Booked a table for 3 at 9pm/m);
  }, 120_000);
});
