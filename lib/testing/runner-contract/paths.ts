import { expect, it } from 'vitest';
import type { Reply } from '../../core/requests.js';
import type { RunnerContractHarness } from './harness.js';
import { type ContractWorld, collect, expectWellFormed } from './world.js';

type Path = 'run' | 'stream';

/** One turn through `Runtime.run` or `Runtime.stream`, answered as the reply either way. */
async function turn(world: ContractWorld, path: Path, sessionId: string, text: string) {
  if (path === 'run') return world.runtime.run('agent', sessionId, text);
  const events = await collect(world.runtime.stream('agent', sessionId, text));
  expectWellFormed(events);
  const last = events.at(-1);
  if (last?.type === 'run-finished') return last.reply;
  if (last?.type === 'run-paused') {
    const { runId, sessionId: session, interruptions } = last;
    return { status: 'paused', runId, sessionId: session, interruptions } as Reply;
  }
  throw new Error(`The stream ended with ${JSON.stringify(last)}`);
}

/**
 * The same cases through `run` and `stream`: a runner may serve a drained turn (`run`) with the
 * framework's non-streaming call, but tools, history, pause and the reply must not tell them apart.
 */
export function registerPathChecks(world: ContractWorld, harness: RunnerContractHarness): void {
  for (const path of ['run', 'stream'] as const) {
    it(`${path}: a tool turn runs the tool once and the next turn sees its history`, async () => {
      // Prepare
      const { server, record } = world;
      server.push(
        {
          toolCalls: [
            { id: `call_path_${path}`, name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'Cold in Oslo.' },
        { text: 'You asked about Oslo.' },
      );

      // Act
      const first = await turn(world, path, `s-path-${path}`, 'Weather in Oslo?');
      const second = await turn(world, path, `s-path-${path}`, 'What did I ask?');

      // Assess
      expect(first).toMatchObject({ status: 'completed', text: 'Cold in Oslo.' });
      expect(second).toMatchObject({ status: 'completed', text: 'You asked about Oslo.' });
      expect(record.weather).toEqual([
        { city: 'Oslo', callId: `call_path_${path}`, callsBefore: 0 },
      ]);
      expect(server.requests).toHaveLength(3);
      const sent = JSON.stringify(server.requests[2]?.body);
      for (const part of [`call_path_${path}`, 'sunny', 'Cold in Oslo.', 'Weather in Oslo?']) {
        expect(sent).toContain(part);
      }
      if (path === 'stream' || harness.drainedRun) {
        // A drained run asks without streaming; a stream always streams.
        expect(server.requests.map((r) => r.stream)).toEqual(
          [0, 1, 2].map(() => path === 'stream'),
        );
      }
    });

    if (!harness.supportsPause) continue;
    it(`${path}: pauses for approval with the same interruption, and resumes once`, async () => {
      // Prepare
      const { server, record } = world;
      const call = {
        id: 'call_path_pay',
        name: 'send_payment',
        arguments: { to: 'bob', amount: 10 },
      };
      server.push({ toolCalls: [call] }, { text: 'Paid Bob 10.' });

      // Act
      const paused = await turn(world, path, `s-path-pay-${path}`, 'Pay Bob 10');
      const done =
        paused.status === 'paused'
          ? await world.runtime.resume(`s-path-pay-${path}`, paused.runId, [
              { id: 'call_path_pay', status: 'approved' },
            ])
          : undefined;

      // Assess
      expect(paused).toMatchObject({
        status: 'paused',
        interruptions: [{ id: 'call_path_pay', kind: 'tool-approval', toolName: 'send_payment' }],
      });
      expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
      expect(record.payments).toEqual([{ to: 'bob', amount: 10, callId: 'call_path_pay' }]);
      expect(server.requests).toHaveLength(2);
    });
  }
}
