import { describe, expect, it } from 'vitest';
import {
  Agent,
  type Runner,
  type RunnerInput,
  type RunnerStream,
  Runtime,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';

/** Replies with the run options it was given. */
class Echo implements Runner<unknown> {
  readonly name = 'echo';
  readonly supportsStreaming = true;
  readonly supportsPause = false;
  readonly reservedRunOptions = { input: 'the runner passes the input itself' };

  // biome-ignore lint/correctness/useYield: replies whole
  async *stream(input: RunnerInput): RunnerStream {
    return {
      status: 'completed',
      text: JSON.stringify(input.options),
      state: {},
      context: input.context,
    };
  }
}

function setup() {
  const calls: unknown[] = [];
  const sessions = new InMemorySessionStore();
  const runtime = new Runtime({
    sessions,
    agents: [
      new Agent({
        name: 'echo',
        native: {},
        runner: new Echo(),
        runOptions: { temperature: 0 },
        runOptionsFactory: (ctx) => {
          calls.push(ctx.requests);
          return { seed: calls.length };
        },
      }),
    ],
  });
  return { calls, runtime };
}

describe('run options are resolved once a turn is known to be valid', () => {
  it('invalid input, a bad session id, a cancelled call and another principal’s session never call the factory', async () => {
    // Prepare
    const { calls, runtime } = setup();
    await runtime.run('echo', 'owned', 'Hi', { principal: 'alice' });
    calls.length = 0;
    const aborted = AbortSignal.abort();

    // Act
    const refusals = await Promise.all([
      runtime.run('echo', 's1', [{ type: 'bogus' }] as never).catch((e: unknown) => e),
      runtime.run('echo', '../etc', 'Hi').catch((e: unknown) => e),
      runtime.run('echo', 's1', 'Hi', { signal: aborted }).catch((e: unknown) => e),
      runtime.run('echo', 'owned', 'Hi', { principal: 'mallory' }).catch((e: unknown) => e),
    ]);

    // Assess
    expect(refusals.map((e) => (e as { code?: string }).code)).toEqual([
      'invalid-request',
      'invalid-request',
      expect.any(String),
      'session-forbidden',
    ]);
    expect(calls).toEqual([]);
  });

  it('a valid run and a valid stream each call the factory once, its result over the declaration', async () => {
    // Prepare
    const { calls, runtime } = setup();

    // Act
    const reply = await runtime.run('echo', 's2', 'Hi');
    for await (const _event of runtime.stream('echo', 's2', 'Again')) {
      // drain
    }

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: '{"temperature":0,"seed":1}' });
    expect(calls).toEqual([[{ type: 'text', text: 'Hi' }], [{ type: 'text', text: 'Again' }]]);
  });
});
