import { describe, expect, it } from 'vitest';
import {
  Agent,
  type Runner,
  type RunnerInput,
  type RunnerStream,
  Runtime,
} from '../../../lib/core/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, fakeAgent, types } from './fake-runner.js';

function runtimeWith(runner: FakeRunner) {
  const sessions = new InMemorySessionStore();
  return { sessions, runtime: new Runtime({ sessions, agents: [fakeAgent(runner)] }) };
}

describe('runner events are checked before any client sees them', () => {
  it.each([
    ['a bare string', 'hello', 'a bare string'],
    ['an object without a type', { runId: 'r1', delta: 'x' }, 'an object without a type'],
    ['an unknown type', { runId: 'r1', type: 'token', delta: 'x' }, 'an invalid "token" event'],
    [
      'a known type with a missing field',
      { runId: 'r1', type: 'text-delta', delta: 'x' },
      'an invalid "text-delta" event',
    ],
    [
      'a token event with an extra key',
      { runId: 'r1', type: 'text-delta', messageId: 'm', delta: 'x', extra: 1 },
      'an invalid "text-delta" event',
    ],
    [
      'a token event with a non-string delta',
      { runId: 'r1', type: 'tool-call-args', toolCallId: 'c', delta: 7 },
      'an invalid "tool-call-args" event',
    ],
    [
      'a token event of another run',
      { runId: 'other', type: 'message-end', messageId: 'm' },
      'an event of run "other"',
    ],
    [
      'a runtime-only event',
      { runId: 'r1', type: 'run-finished', reply: {} },
      'an invalid "run-finished" event',
    ],
    [
      'a terminal event of the right shape',
      { runId: 'r1', type: 'run-error', code: 'x', message: 'y' },
      '"run-error" event, which only the runtime emits',
    ],
    [
      'another run’s event',
      { runId: 'other', type: 'step-start', stepId: 's' },
      'an event of run "other"',
    ],
  ])('refuses %s with invalid-runner-event, and stores nothing', async (_name, raw, words) => {
    // Prepare
    const runner = new FakeRunner().script({ steps: [{ raw }] });
    const { sessions, runtime } = runtimeWith(runner);

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi', { runId: 'r1' }));

    // Assess
    expect(types(events)).toEqual(['run-started', 'run-error']);
    expect(events[1]).toMatchObject({ code: 'invalid-runner-event' });
    expect((events[1] as { message: string }).message).toContain(words);
    expect(await sessions.load('s1')).toBeUndefined();
  });

  it('refuses them in run() too, with the typed error', async () => {
    // Prepare
    const { runtime } = runtimeWith(new FakeRunner().script({ steps: [{ raw: 42 }] }));

    // Act
    const run = runtime.run('echo', 's1', 'hi');

    // Assess
    await expect(run).rejects.toMatchObject({ code: 'invalid-runner-event' });
  });
});

describe('a runner without token streaming (supportsStreaming = false)', () => {
  it('has its reply sent as one message at the end, its own token events dropped', async () => {
    // Prepare
    const runner = new FakeRunner({ supportsStreaming: false }).script({
      text: 'The whole answer.',
      steps: [
        { event: { type: 'step-start', stepId: 'st' } },
        { event: { type: 'message-start', messageId: 'm' } },
        { event: { type: 'text-delta', messageId: 'm', delta: 'The whole' } },
        { event: { type: 'tool-call-start', toolCallId: 'c', toolName: 't' } },
        { event: { type: 'tool-call-end', toolCallId: 'c' } },
        { event: { type: 'step-end', stepId: 'st' } },
      ],
    });
    const { runtime } = runtimeWith(runner);

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi', { runId: 'r1' }));

    // Assess
    expect(types(events)).toEqual([
      'run-started',
      'step-start',
      'tool-call-start',
      'tool-call-end',
      'step-end',
      'message-start',
      'text-delta',
      'message-end',
      'run-finished',
    ]);
    expect(events[6]).toMatchObject({ delta: 'The whole answer.' });
  });

  it('streams as usual when it declares streaming', async () => {
    // Prepare
    const runner = new FakeRunner().script({
      text: 'ab',
      steps: [
        { event: { type: 'message-start', messageId: 'm' } },
        { event: { type: 'text-delta', messageId: 'm', delta: 'ab' } },
        { event: { type: 'message-end', messageId: 'm' } },
      ],
    });

    // Act
    const events = await collect(runtimeWith(runner).runtime.stream('echo', 's1', 'hi'));

    // Assess
    expect(types(events)).toEqual([
      'run-started',
      'message-start',
      'text-delta',
      'message-end',
      'run-finished',
    ]);
  });
});

/** Says something, then pauses on one approval. */
class TalkThenPause implements Runner<unknown> {
  readonly name = 'talker';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = {};

  async *stream(input: RunnerInput): RunnerStream {
    const { runId } = input;
    yield { type: 'message-start', runId, messageId: 'm' };
    yield { type: 'text-delta', runId, messageId: 'm', delta: 'Let me ask ' };
    yield { type: 'text-delta', runId, messageId: 'm', delta: 'first.' };
    yield { type: 'message-end', runId, messageId: 'm' };
    return {
      status: 'paused',
      interruptions: [{ id: 'call-1', kind: 'tool-approval', toolName: 'refund' }],
      pausedState: {},
      context: input.context,
    };
  }
}

describe('a paused reply', () => {
  it('keeps the text the agent produced before the pause', async () => {
    // Prepare
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      agents: [new Agent({ name: 'talker', native: {}, runner: new TalkThenPause() })],
    });

    // Act
    const reply = await runtime.run('talker', 's1', 'refund order 7');

    // Assess
    expect(reply).toMatchObject({ status: 'paused', text: 'Let me ask first.' });
  });
});
