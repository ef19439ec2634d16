import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { InMemorySessionStore, Runtime, type StreamEvent } from '../../../lib/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({ fallback: { text: 'The scripted answer.' } });
});
afterAll(() => server.close());

function runtime() {
  const model = createOpenAI({ baseURL: server.url, apiKey: 'k' })('scripted-model');
  const sessions = new InMemorySessionStore();
  const agent = aiSdkAgent({ name: 'helper', model, instructions: 'Answer briefly.' });
  return { sessions, runtime: new Runtime({ sessions, agents: [agent] }) };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('a streamed AI SDK turn reads its result from the end event', () => {
  it.each(['onEnd', 'onFinish'])(
    'still calls the caller’s own %s once, and stores the turn',
    async (name) => {
      // Prepare
      const { sessions, runtime: rt } = runtime();
      const seen: { text: string }[] = [];
      const runOptions = { [name]: (event: { text: string }) => void seen.push(event) };

      // Act
      const events = await collect(rt.stream('helper', 's1', 'hi', { runOptions }));
      const stored = await sessions.load('s1');

      // Assess
      const finished = events.at(-1);
      expect(finished).toMatchObject({
        type: 'run-finished',
        reply: { status: 'completed', text: 'The scripted answer.' },
      });
      expect(seen.map((event) => event.text)).toEqual(['The scripted answer.']);
      const state = stored?.data.state['ai-sdk'] as { messages: { role: string }[] };
      expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    },
  );

  it('gives the same reply, usage and history as a drained run', async () => {
    // Prepare
    const { sessions, runtime: rt } = runtime();

    // Act
    const drained = await rt.run('helper', 'run', 'hi');
    const events = await collect(rt.stream('helper', 'stream', 'hi'));
    const [ran, streamed] = await Promise.all([sessions.load('run'), sessions.load('stream')]);

    // Assess
    const finished = events.at(-1) as Extract<StreamEvent, { type: 'run-finished' }>;
    expect({ ...finished.reply, runId: drained.runId, sessionId: 'run' }).toEqual(drained);
    // The same history but for the server's fresh message ids.
    const shape = (state: unknown) => JSON.stringify(state).replace(/msg_[0-9a-f]+/g, 'msg');
    expect(shape(streamed?.data.state)).toEqual(shape(ran?.data.state));
  });
});
