import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { Agent, Runtime } from '../../../lib/core/index.js';
import { LangGraphRunner } from '../../../lib/frameworks/langgraph/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';

/** A graph whose one node answers with the thread id LangGraph gave it. */
function threadEcho() {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('echo', (_state, config) => ({
      messages: [new AIMessage(`thread=${config.configurable?.thread_id}`)],
    }))
    .addEdge(START, 'echo')
    .addEdge('echo', END)
    .compile();
  return { name: 'threads', graph };
}

function agentWith(runOptions?: Record<string, unknown>) {
  return new Agent({
    name: 'threads',
    native: threadEcho(),
    runner: new LangGraphRunner(),
    ...(runOptions ? { runOptions } : {}),
  });
}

describe('LangGraph run options: the nested reserved key', () => {
  it('refuses configurable.thread_id at declaration, naming the key and the reason', () => {
    // Act
    const declare = () => agentWith({ configurable: { thread_id: 'mine', user: 'u' } });

    // Assess
    expect(declare).toThrow(
      expect.objectContaining({
        code: 'reserved-run-option',
        key: 'configurable.thread_id',
        message: expect.stringContaining('the thread is the runtime session'),
      }),
    );
    expect(() => agentWith({ configurable: { user: 'u' } })).not.toThrow();
  });

  it('refuses it per call before the graph runs', async () => {
    // Prepare
    const sessions = new InMemorySessionStore();
    const runtime = new Runtime({ sessions, agents: [agentWith()] });

    // Act
    const run = runtime.run('threads', 's1', 'hi', {
      runOptions: { configurable: { thread_id: 'mine' } },
    });

    // Assess
    await expect(run).rejects.toMatchObject({ code: 'reserved-run-option' });
    expect(await sessions.load('s1')).toBeUndefined();
  });

  it('keeps the kernel’s thread when a caller bypasses the checks and calls the runner', async () => {
    // Prepare
    const agent = agentWith();
    const runner = agent.runner as LangGraphRunner;

    // Act: straight to the runner, as nothing in the runtime would let it through.
    const stream = runner.stream({
      runId: 'r1',
      sessionId: 's1',
      agent,
      requests: [{ type: 'text', text: 'hi' }],
      state: undefined,
      context: {},
      options: { configurable: { thread_id: 'mine' } },
      signal: new AbortController().signal,
    });
    let step = await stream.next();
    while (!step.done) step = await stream.next();

    // Assess
    expect(step.value).toMatchObject({ status: 'completed', text: 'thread=session' });
  });
});
