import { expect, it } from 'vitest';
import { type ContractWorld, collect, expectWellFormed } from './world.js';

const payCall = {
  toolCalls: [{ id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } }],
};
const interruption = {
  id: 'call_pay_1',
  kind: 'tool-approval',
  toolName: 'send_payment',
  arguments: { to: 'bob', amount: 10 },
};

/** Pause on a `confirm` tool, then approve or deny: only for runners that support pausing. */
export function registerPauseChecks(world: ContractWorld): void {
  it('pauses for approval and runs the tool once on approve, without asking the model again', async () => {
    // Prepare
    const { server, runtime, pausedRuns, record } = world;
    server.push(payCall, { text: 'Paid Bob 10.' });

    // Act
    const paused = await runtime.run('agent', 's-approve', 'Pay Bob 10');

    // Assess
    expect(paused).toMatchObject({ status: 'paused', interruptions: [interruption] });
    expect(record.payments).toEqual([]);
    expect(await pausedRuns.get('s-approve', paused.runId)).toMatchObject({ status: 'pending' });

    // Act
    const done = await runtime.resume('s-approve', paused.runId, [
      { id: 'call_pay_1', status: 'approved' },
    ]);

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 10, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sent 10 to bob');
    await expect(
      runtime.resume('s-approve', paused.runId, [{ id: 'call_pay_1', status: 'approved' }]),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(record.payments).toHaveLength(1);
  });

  it('streams run-paused, then resumes as a stream ending in run-finished', async () => {
    // Prepare
    const { server, runtime, record } = world;
    server.push(payCall, { text: 'Paid.' });

    // Act
    const first = await collect(runtime.stream('agent', 's-stream-pause', 'Pay Bob 10'));
    const runId = first[0]?.runId ?? '';
    const second = await collect(
      runtime.resumeStream('s-stream-pause', runId, [{ id: 'call_pay_1', status: 'approved' }]),
    );

    // Assess
    expectWellFormed(first);
    expect(first.at(-1)).toMatchObject({ type: 'run-paused', interruptions: [interruption] });
    expectWellFormed(second);
    expect(second.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid.' } });
    expect(second).toContainEqual(
      expect.objectContaining({ type: 'tool-call-result', toolCallId: 'call_pay_1' }),
    );
    expect(record.payments).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('denies: the tool does not run and the run completes', async () => {
    // Prepare
    const { server, runtime, record } = world;
    server.push(payCall, { text: 'Okay, no payment.' });
    const paused = await runtime.run('agent', 's-deny', 'Pay Bob 10');

    // Act
    const done = await runtime.resume('s-deny', paused.runId, [
      { id: 'call_pay_1', status: 'denied', message: 'Bob was paid yesterday' },
    ]);

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Okay, no payment.' });
    expect(record.payments).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });
}
