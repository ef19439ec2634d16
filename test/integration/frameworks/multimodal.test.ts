import { createOpenAI } from '@ai-sdk/openai';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer();

// One turn with text, an image and a file, as a client sends it.
const INPUT = [
  { type: 'text' as const, text: 'What is in these?' },
  { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  { type: 'file' as const, data: 'JVBERi0=', mimeType: 'application/pdf', name: 'doc.pdf' },
];

const runtimeOf = (agent: Parameters<Runtime['register']>[0]) =>
  new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });

describe('images and files reach the model as its own input parts', () => {
  it.each([
    ['ai-sdk (responses)', (p: ReturnType<typeof createOpenAI>) => p('scripted-model')],
    ['ai-sdk (chat completions)', (p: ReturnType<typeof createOpenAI>) => p.chat('scripted-model')],
  ])('%s', async (_name, modelOf) => {
    // Prepare
    const model = modelOf(createOpenAI({ baseURL: server.url, apiKey: 'k' }));
    const runtime = runtimeOf(aiSdkAgent({ name: 'seer', model }));
    server.push({ text: 'A dot and a PDF.' });

    // Act
    const reply = await runtime.run('seer', 's1', INPUT);

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'A dot and a PDF.' });
    const sent = JSON.stringify(server.requests[0]?.body);
    expect(sent).toContain('iVBORw0KGgo=');
    expect(sent).toContain('data:application/pdf;base64,JVBERi0=');
    expect(sent).toContain('doc.pdf');
  });

  it('langgraph (ChatOpenAI): the file as a file part, not placeholder text', async () => {
    // Prepare
    const llm = new ChatOpenAI({
      model: 'scripted-model',
      apiKey: 'k',
      configuration: { baseURL: server.url },
      maxRetries: 0,
    });
    const graph = createReactAgent({ llm, tools: [] });
    const runtime = runtimeOf(langgraphAgent({ name: 'seer', graph }));
    server.push({ text: 'A dot and a PDF.' });

    // Act
    const reply = await runtime.run('seer', 's1', INPUT);

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'A dot and a PDF.' });
    const body = server.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.find((m) => m.role === 'user');
    expect(user?.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      {
        type: 'image_url',
        image_url: expect.objectContaining({ url: 'data:image/png;base64,iVBORw0KGgo=' }),
      },
      {
        type: 'file',
        file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'doc.pdf' },
      },
    ]);
  });
});
