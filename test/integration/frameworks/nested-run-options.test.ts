import { LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import { langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

setLogLevel(LogLevel.WARN);

// The rule: a declared native options object is shared by every run of the agent, so the kernel
// copies it before adding its own keys. The declaration is frozen all the way down here: a
// runner that wrote into it (even one level deep) would throw, and a copy that leaked a run's
// keys back would show in the final comparison.
const server = useScriptedModelServer();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function echoGraph() {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('echo', (_state, config) => ({
      messages: [new AIMessage(`user=${JSON.stringify(config.configurable?.user)}`)],
    }))
    .addEdge(START, 'echo')
    .addEdge('echo', END)
    .compile();
  return { name: 'echo', graph };
}

describe('declared native options stay unmutated across runs, nested objects included', () => {
  it('LangGraph config: configurable and metadata objects', async () => {
    // Prepare
    const declared = {
      configurable: { user: { id: 'u-1', tags: ['a'] } },
      metadata: { team: { name: 'core' } },
      recursionLimit: 5,
    };
    const before = structuredClone(declared);
    const agent = langgraphAgent(echoGraph(), { runOptions: deepFreeze(declared) });
    const runtime = new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });

    // Act
    const first = await runtime.run('echo', 's-1', 'hi');
    const second = await runtime.run('echo', 's-2', 'hi again');

    // Assess
    expect(first.text).toBe('user={"id":"u-1","tags":["a"]}');
    expect(second.text).toBe(first.text);
    expect(declared).toEqual(before);
  });

  it('ADK RunConfig: nested speech config and modality list', async () => {
    // Prepare
    server.push({ text: 'One.' }, { text: 'Two.' });
    const declared = {
      maxLlmCalls: 4,
      speechConfig: { languageCode: 'en-US' },
      responseModalities: ['TEXT'],
      customMetadata: { origin: { app: 'tests' } },
    };
    const before = structuredClone(declared);
    const model = geminiModel({
      model: 'gemini-2.5-flash',
      apiKey: 'test-key',
      baseUrl: server.url.replace(/\/v1$/, ''),
    });
    const native = new LlmAgent({ name: 'assistant', instruction: 'Be brief.', model });
    const agent = adkAgent(native, { runOptions: deepFreeze(declared) });
    const runtime = new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });

    // Act
    const first = await runtime.run('assistant', 's-1', 'hi');
    const second = await runtime.run('assistant', 's-2', 'hi again');

    // Assess
    expect([first.text, second.text]).toEqual(['One.', 'Two.']);
    expect(declared).toEqual(before);
  });
});
