import { describe, expect, it } from 'vitest';
import { ModelError, type RunInput, Runtime, StreamEventSchema } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, failureOf, fakeAgent, last, types } from './fake-runner.js';

function setup() {
  const runner = new FakeRunner();
  const store = new InMemorySessionStore();
  const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)] });
  return { runner, store, runtime };
}

describe('Runtime registry', () => {
  it('registers agents, lists them and refuses a second agent with the same name', () => {
    // Prepare
    const { runtime } = setup();

    // Act
    const duplicate = () => runtime.register(fakeAgent(new FakeRunner()));

    // Assess
    expect(runtime.agents.map((a) => a.name)).toEqual(['echo']);
    expect(duplicate).toThrow(expect.objectContaining({ code: 'duplicate-agent' }));
    expect(() => runtime.agent('nope')).toThrow(
      expect.objectContaining({ code: 'agent-not-found' }),
    );
  });
});

describe('Runtime streams', () => {
  it('yields only events that match StreamEventSchema, ids from the runner kept', async () => {
    // Prepare
    const { runner, runtime } = setup();
    runner.script({
      usage: { inputTokens: 3, outputTokens: 4 },
      steps: [
        { event: { type: 'step-start', stepId: 'st1' } },
        { event: { type: 'reasoning-start', reasoningId: 'r1' } },
        { event: { type: 'reasoning-delta', reasoningId: 'r1', delta: 'hmm' } },
        { event: { type: 'reasoning-end', reasoningId: 'r1' } },
        { event: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'add' } },
        { event: { type: 'tool-call-args', toolCallId: 'c1', delta: '{"a":1}' } },
        { event: { type: 'tool-call-end', toolCallId: 'c1' } },
        { event: { type: 'tool-call-result', toolCallId: 'c1', toolName: 'add', result: 2 } },
        { event: { type: 'message-start', messageId: 'msg-1' } },
        { event: { type: 'text-delta', messageId: 'msg-1', delta: 'two' } },
        { event: { type: 'message-end', messageId: 'msg-1' } },
        { event: { type: 'step-end', stepId: 'st1', usage: { inputTokens: 3, outputTokens: 4 } } },
      ],
    });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'add', { runId: 'r1' }));

    // Assess
    for (const event of events) expect(StreamEventSchema.safeParse(event).success).toBe(true);
    expect(events.every((e) => e.runId === 'r1')).toBe(true);
    expect(events[0]).toEqual({ type: 'run-started', runId: 'r1', sessionId: 's1', agent: 'echo' });
    expect(events).toHaveLength(14);
    expect(events[9]).toMatchObject({ type: 'message-start', messageId: 'msg-1' });
    expect(last(events, 'run-finished').reply).toEqual({
      status: 'completed',
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      text: 'echo: add',
      usage: { inputTokens: 3, outputTokens: 4 },
    });
  });

  it('closes what the runner left open before run-finished', async () => {
    // Prepare
    const { runner, runtime } = setup();
    runner.script({ steps: [{ event: { type: 'message-start', messageId: 'm1' } }] });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi'));

    // Assess
    expect(types(events)).toEqual(['run-started', 'message-start', 'message-end', 'run-finished']);
  });
});

describe('a failing runner', () => {
  it('rejects run with runner-error and leaves the stored session as it was', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    await runtime.run('echo', 's1', 'one');
    const before = await store.load('s1');
    runner.script({ steps: [{ fail: new Error('model exploded') }] });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'two'));

    // Assess
    expect(failure.code).toBe('runner-error');
    expect(failure.message).toContain('model exploded');
    expect(await store.load('s1')).toEqual(before);
  });

  it('keeps the code of a kernel error the runner throws', async () => {
    // Prepare
    const { runner, runtime } = setup();
    runner.script({ steps: [{ fail: new ModelError('slow down', { status: 429 }) }] });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));

    // Assess
    expect(failure).toMatchObject({ code: 'model-rate-limited', message: 'slow down' });
  });

  it('ends a stream that fails mid-way with closing events and run-error', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    await runtime.run('echo', 's1', 'one');
    const before = await store.load('s1');
    runner.script({
      steps: [
        { event: { type: 'message-start', messageId: 'm1' } },
        { event: { type: 'text-delta', messageId: 'm1', delta: 'par' } },
        { fail: new Error('connection reset') },
      ],
    });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'two'));

    // Assess
    expect(types(events)).toEqual([
      'run-started',
      'message-start',
      'text-delta',
      'message-end',
      'run-error',
    ]);
    expect(last(events, 'run-error').code).toBe('runner-error');
    expect(last(events, 'run-error').message).toContain('connection reset');
    expect(await store.load('s1')).toEqual(before);
  });
});

describe('invalid input', () => {
  const cases: [string, string, string, RunInput, string][] = [
    ['an unknown agent', 'nope', 's1', 'hi', 'agent-not-found'],
    ['a bad sessionId', 'echo', 'has spaces', 'hi', 'invalid-request'],
    ['an empty text', 'echo', 's1', '', 'invalid-request'],
    ['no requests', 'echo', 's1', [], 'invalid-request'],
    [
      'a bad image mimeType',
      'echo',
      's1',
      { type: 'image', data: 'aGk=', mimeType: 'png' },
      'invalid-request',
    ],
  ];

  it.each(cases)('refuses %s in run and stream', async (_what, agent, sessionId, input, code) => {
    // Prepare
    const { runner, store, runtime } = setup();

    // Act
    const failure = await failureOf(runtime.run(agent, sessionId, input));
    const events = await collect(runtime.stream(agent, sessionId, input, { runId: 'r1' }));

    // Assess
    expect(failure.code).toBe(code);
    expect(events).toEqual([{ type: 'run-error', runId: 'r1', code, message: failure.message }]);
    expect(runner.inputs).toHaveLength(0);
    expect(store.size).toBe(0);
  });
});

describe('session owner', () => {
  it('refuses a turn of another principal on an owned session', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    await runtime.run('echo', 's1', 'mine', { principal: 'ann' });
    const before = await store.load('s1');

    // Act
    const byBob = await failureOf(runtime.run('echo', 's1', 'hi', { principal: 'bob' }));
    const anonymous = await collect(runtime.stream('echo', 's1', 'hi'));
    const byAnn = await runtime.run('echo', 's1', 'again', { principal: 'ann' });

    // Assess
    expect(byBob.code).toBe('session-forbidden');
    expect(types(anonymous)).toEqual(['run-started', 'run-error']);
    expect(last(anonymous, 'run-error').code).toBe('session-forbidden');
    expect(byAnn).toMatchObject({ status: 'completed' });
    expect(runner.inputs).toHaveLength(2);
    expect(before?.data.owner).toBe('ann');
  });
});
