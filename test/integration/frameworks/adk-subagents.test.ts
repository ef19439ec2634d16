import { InMemorySessionService, LlmAgent, LogLevel, Runner, setLogLevel } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

setLogLevel(LogLevel.WARN);

const server = useScriptedModelServer();
const script = [
  { toolCalls: [{ id: 't1', name: 'transfer_to_agent', arguments: { agent_name: 'child' } }] },
  { text: 'Child here.' },
  { text: 'Again.' },
];

function agents() {
  const model = geminiModel({ apiKey: 'k', baseUrl: server.url.replace(/\/v1$/, '') });
  const child = new LlmAgent({ name: 'child', description: 'Answers everything.' });
  return new LlmAgent({ name: 'root', model, subAgents: [child] });
}

/** What decides the model's answers: the contents and instructions of every request. */
const sent = () =>
  server.requests.map((r) => ({ contents: r.body.contents, system: r.body.systemInstruction }));

describe('ADK sub-agents', () => {
  it('a transfer over two turns sends what ADK’s own InMemorySessionService sends', async () => {
    // Prepare: the same two turns straight through ADK's Runner and session service
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'root', agent: agents(), sessionService });
    await sessionService.createSession({ appName: 'root', userId: 'user', sessionId: 's' });
    server.reset(script);
    for (const text of ['Hi', 'Again?']) {
      const newMessage = { role: 'user', parts: [{ text }] };
      for await (const _ of runner.runAsync({ userId: 'user', sessionId: 's', newMessage })) {
        // drained
      }
    }
    const expected = sent();
    server.reset(script);
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [adkAgent(agents())],
    });

    // Act
    const events = [];
    for await (const event of runtime.stream('root', 's', 'Hi')) events.push(event);
    const second = await runtime.run('root', 's', 'Again?');

    // Assess
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool-call-result', toolName: 'transfer_to_agent' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Child here.' } });
    expect(second).toMatchObject({ status: 'completed', text: 'Again.' });
    expect(expected).toHaveLength(3);
    expect(sent()).toEqual(expected);
  });
});
