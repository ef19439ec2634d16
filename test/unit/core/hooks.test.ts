import { describe, expect, it } from 'vitest';
import {
  type PostHook,
  type PreHook,
  type Request,
  Runtime,
  StreamHalt,
  type TurnInfo,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  collect,
  FakeRunner,
  failureOf,
  fakeAgent,
  Gate,
  historyOf,
  last,
  type ScriptEvent,
  types,
} from './fake-runner.js';

function setup(hooks: {
  agentPre?: PreHook[];
  systemPre?: PreHook[];
  agentPost?: PostHook[];
  systemPost?: PostHook[];
}) {
  const runner = new FakeRunner();
  const store = new InMemorySessionStore();
  const runtime = new Runtime({
    sessions: store,
    preHooks: hooks.systemPre,
    postHooks: hooks.systemPost,
    agents: [fakeAgent(runner, { preHooks: hooks.agentPre, postHooks: hooks.agentPost })],
  });
  return { runner, store, runtime };
}

const message = (id: string, ...deltas: string[]): { event: ScriptEvent }[] => [
  { event: { type: 'message-start', messageId: id } },
  ...deltas.map((delta) => ({
    event: { type: 'text-delta', messageId: id, delta } as ScriptEvent,
  })),
  { event: { type: 'message-end', messageId: id } },
];

describe('PreHook.onRun', () => {
  it('rewrites the requests the runner receives, later hooks seeing earlier rewrites', async () => {
    // Prepare
    const seenBySystem: (readonly Request[])[] = [];
    const { runner, store, runtime } = setup({
      agentPre: [
        { name: 'rewrite', onRun: () => ({ requests: [{ type: 'text', text: 'redacted' }] }) },
      ],
      systemPre: [{ name: 'observe', onRun: (turn) => void seenBySystem.push(turn.requests) }],
    });

    // Act
    const reply = await runtime.run('echo', 's1', 'my secret');

    // Assess
    expect(seenBySystem).toEqual([[{ type: 'text', text: 'redacted' }]]);
    expect(runner.inputs[0]?.requests).toEqual([{ type: 'text', text: 'redacted' }]);
    expect(reply).toMatchObject({ status: 'completed', text: 'echo: redacted' });
    expect(historyOf((await store.load('s1'))?.data)).toEqual(['redacted', 'echo: redacted']);
  });

  it('refuses a rewrite into invalid requests with hook-error and calls no runner', async () => {
    // Prepare
    const bad: PreHook = { name: 'bad', onRun: () => ({ requests: [{ type: 'text', text: '' }] }) };
    const { runner, store, runtime } = setup({ systemPre: [bad] });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));
    const events = await collect(runtime.stream('echo', 's1', 'hi'));

    // Assess
    expect(failure).toMatchObject({ code: 'hook-error' });
    expect(failure.message).toContain('"bad"');
    expect(last(events, 'run-error').code).toBe('hook-error');
    expect(runner.inputs).toHaveLength(0);
    expect(store.size).toBe(0);
  });

  it('wraps a foreign error thrown by a hook in hook-error naming the hook', async () => {
    // Prepare
    const { runtime } = setup({
      agentPre: [
        {
          name: 'flaky',
          onRun: () => {
            throw new TypeError('nope');
          },
        },
      ],
    });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));

    // Assess
    expect(failure).toMatchObject({ code: 'hook-error', message: 'Hook "flaky" failed: nope' });
  });

  it('halts with a reply: no runner, no later hook, nothing stored, reply streamed', async () => {
    // Prepare
    const later: string[] = [];
    const halt: PreHook = { name: 'policy', onRun: () => ({ halt: { text: 'Not allowed.' } }) };
    const { runner, store, runtime } = setup({
      agentPre: [halt],
      systemPre: [{ name: 'later', onRun: () => void later.push('called') }],
      agentPost: [{ name: 'post', onRun: () => void later.push('post') }],
    });

    // Act
    const reply = await runtime.run('echo', 's1', 'hi', { runId: 'r1' });
    const events = await collect(runtime.stream('echo', 's1', 'hi', { runId: 'r2' }));

    // Assess
    expect(reply).toEqual({
      status: 'completed',
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      text: 'Not allowed.',
    });
    expect(types(events)).toEqual([
      'run-started',
      'message-start',
      'text-delta',
      'message-end',
      'run-finished',
    ]);
    expect(events[2]).toMatchObject({ type: 'text-delta', delta: 'Not allowed.' });
    expect(last(events, 'run-finished').reply).toMatchObject({ runId: 'r2', text: 'Not allowed.' });
    expect(runner.inputs).toHaveLength(0);
    expect(later).toEqual([]);
    expect(store.size).toBe(0);
  });
});

describe('PostHook.onRun', () => {
  it('rewrites the reply in order (agent, then system) for run and stream', async () => {
    // Prepare
    const upper: PostHook = {
      name: 'upper',
      onRun: (_t, r) => ({ ...r, text: r.text.toUpperCase() }),
    };
    const sign: PostHook = { name: 'sign', onRun: (_t, r) => ({ ...r, text: `${r.text} --bot` }) };
    const keep: PostHook = { name: 'keep', onRun: () => undefined };
    const { runtime } = setup({ agentPost: [upper, keep], systemPost: [sign] });

    // Act
    const reply = await runtime.run('echo', 's1', 'hi');
    const events = await collect(runtime.stream('echo', 's2', 'yo'));

    // Assess
    expect(reply.status === 'completed' && reply.text).toBe('ECHO: HI --bot');
    expect(last(events, 'run-finished').reply.text).toBe('ECHO: YO --bot');
  });
});

describe('PostHook.onStreamEvent', () => {
  it('rewrites, drops and expands events; the system hook sees the agent hook output', async () => {
    // Prepare
    const seen: string[] = [];
    const agentHook: PostHook = {
      name: 'shape',
      onStreamEvent: (event) => {
        seen.push(event.type);
        if (event.type !== 'text-delta') return undefined;
        if (event.delta === 'drop') return null;
        if (event.delta === 'b') return [event, { ...event, delta: 'c' }];
        return { ...event, delta: event.delta.toUpperCase() };
      },
    };
    const systemHook: PostHook = {
      name: 'mark',
      onStreamEvent: (event) =>
        event.type === 'text-delta' ? { ...event, delta: `${event.delta}!` } : undefined,
    };
    const { runner, runtime } = setup({ agentPost: [agentHook], systemPost: [systemHook] });
    runner.script({ steps: message('m1', 'a', 'drop', 'b') });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi'));

    // Assess
    const deltas = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : []));
    expect(deltas).toEqual(['A!', 'b!', 'c!']);
    expect(types(events)).toEqual([
      'run-started',
      'message-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'message-end',
      'run-finished',
    ]);
    // Only runner events reach the hook, never run-started/-finished.
    expect(seen).toEqual([
      'message-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'message-end',
    ]);
  });

  it('refuses a type change with hook-type-change, closing the open message first', async () => {
    // Prepare
    const sneaky: PostHook = {
      name: 'sneaky',
      onStreamEvent: (event) =>
        event.type === 'text-delta'
          ? [event, { type: 'message-end', runId: event.runId, messageId: event.messageId }]
          : undefined,
    };
    const { runner, store, runtime } = setup({ systemPost: [sneaky] });
    runner.script({ steps: message('m1', 'a') });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi'));

    // Assess
    expect(types(events)).toEqual(['run-started', 'message-start', 'message-end', 'run-error']);
    expect(last(events, 'run-error')).toMatchObject({ code: 'hook-type-change' });
    expect(last(events, 'run-error').message).toContain('"sneaky"');
    expect(runner.outcomes).toEqual(['closed']);
    expect(store.size).toBe(0);
  });
});

describe('StreamHalt', () => {
  it('closes open boundaries innermost first, emits run-error, aborts the runner, stores nothing', async () => {
    // Prepare
    const censor: PostHook = {
      name: 'censor',
      onStreamEvent: (event) => {
        if (event.type === 'text-delta' && event.delta.includes('secret')) {
          throw new StreamHalt('Blocked by policy.', 'content-blocked');
        }
        return undefined;
      },
    };
    const { runner, store, runtime } = setup({ systemPost: [censor] });
    await runtime.run('echo', 's1', 'first');
    const before = await store.load('s1');
    const never = new Gate();
    runner.script({
      steps: [
        { event: { type: 'step-start', stepId: 's-1' } },
        { event: { type: 'message-start', messageId: 'm1' } },
        { event: { type: 'text-delta', messageId: 'm1', delta: 'fine' } },
        { event: { type: 'tool-call-start', toolCallId: 't1', toolName: 'lookup' } },
        { event: { type: 'tool-call-args', toolCallId: 't1', delta: '{}' } },
        { event: { type: 'text-delta', messageId: 'm1', delta: 'the secret is' } },
        { wait: never.promise },
      ],
    });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'second', { runId: 'r2' }));

    // Assess
    expect(events.slice(6)).toEqual([
      { type: 'tool-call-end', runId: 'r2', toolCallId: 't1' },
      { type: 'message-end', runId: 'r2', messageId: 'm1' },
      { type: 'step-end', runId: 'r2', stepId: 's-1' },
      { type: 'run-error', runId: 'r2', code: 'content-blocked', message: 'Blocked by policy.' },
    ]);
    expect(events.some((e) => e.type === 'text-delta' && e.delta.includes('secret'))).toBe(false);
    const signal = runner.inputs[1]?.signal;
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(StreamHalt);
    expect(runner.outcomes).toEqual(['completed', 'closed']);
    expect(await store.load('s1')).toEqual(before);
  });

  it('gives hooks the turn info of the run', async () => {
    // Prepare
    const infos: TurnInfo[] = [];
    const { runner, runtime } = setup({
      agentPost: [{ name: 'info', onStreamEvent: (_e, turn) => void infos.push(turn) }],
    });
    runner.script({ steps: message('m1', 'a') });

    // Act
    await collect(runtime.stream('echo', 's1', 'hi', { runId: 'r1', principal: 'ann' }));

    // Assess
    expect(infos).toHaveLength(3);
    expect(infos[0]).toMatchObject({
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      principal: 'ann',
    });
  });
});
