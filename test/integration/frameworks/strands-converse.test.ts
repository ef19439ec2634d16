import type { BedrockModel } from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../../lib/frameworks/strands/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { contractTools } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer();

/** The runtime with a Strands agent on "Bedrock" (the scripted server's Converse API). */
function runtime(model: BedrockModel) {
  const record = { weather: [], payments: [] };
  const tools = contractTools(record).map((spec) => STRANDS_INTEGRATION.exportTool(spec));
  const agent = strandsAgent({
    name: 'agent',
    model,
    systemPrompt: 'You report the weather.',
    tools,
  });
  return new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });
}

/** The same model with Strands' non-streaming mode: `Converse` instead of `ConverseStream`. */
function unstreamed(): BedrockModel {
  const model = offlineBedrock(server.url);
  model.updateConfig({ stream: false });
  return model;
}

describe('the scripted model server speaks Bedrock Converse to the AWS SDK (through Strands)', () => {
  it.each([
    ['ConverseStream', () => offlineBedrock(server.url), '/converse-stream', true],
    ['Converse', unstreamed, '/converse', false],
  ] as const)('%s: reasoning, a tool call and its answer', async (_api, model, path, streamed) => {
    // Prepare
    server.push(
      {
        reasoning: 'The user wants Oslo.',
        toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { inputTokens: 40, outputTokens: 12 },
      },
      { text: 'Sunny in Oslo.', usage: { inputTokens: 60, outputTokens: 5 } },
    );

    // Act
    const events = await collect(runtime(model()).stream('agent', 's-converse', 'Oslo?'));

    // Assess: the SDK decoded every frame (CRCs checked) into Strands' events, then ours
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Sunny in Oslo.', usage: { inputTokens: 100, outputTokens: 17 } },
    });
    expect(events).toContainEqual(expect.objectContaining({ type: 'reasoning-delta' }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool-call-start', toolCallId: 'call_w' }),
    );
    const [first, second] = server.requests;
    expect(first).toMatchObject({ api: 'converse', stream: streamed });
    expect(first?.path).toBe(`/model/scripted-model${path}`);
    expect(first?.body.system).toEqual([{ text: 'You report the weather.' }]);
    expect(first?.body.toolConfig.tools.map((t: any) => t.toolSpec.name)).toEqual([
      'get_weather',
      'send_payment',
    ]);
    expect(first?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDOFFLINE\//);
    expect(JSON.stringify(second?.body.messages)).toContain('"toolUseId":"call_w"');
  });

  it.each([
    [429, 'model-rate-limited', 'ThrottlingException'],
    [400, 'model-error', 'ValidationException'],
    [503, 'model-error', 'ServiceUnavailableException'],
  ] as const)('answers a scripted %i as Bedrock’s exception', async (status, code, name) => {
    // Prepare
    server.push({ error: { status, message: 'scripted failure' } });

    // Act
    const events = await collect(runtime(offlineBedrock(server.url)).stream('agent', 's-e', 'Hi'));

    // Assess
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'run-error', code });
    expect(last?.type === 'run-error' ? last.message : '').toContain(name);
    expect(server.requests).toHaveLength(1);
  });

  it('sends images and files of a turn as Bedrock image and document blocks', async () => {
    // Prepare
    server.push({ text: 'A dot and a PDF.' });

    // Act
    const reply = await runtime(offlineBedrock(server.url)).run('agent', 's-media', [
      { type: 'text', text: 'What is in these?' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'file', data: 'JVBERi0=', mimeType: 'application/pdf', name: 'doc v1.pdf' },
    ]);

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'A dot and a PDF.' });
    expect(server.requests[0]?.body.messages[0].content).toEqual([
      { text: 'What is in these?' },
      { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
      { document: { name: 'doc v1', format: 'pdf', source: { bytes: 'JVBERi0=' } } },
    ]);
  });
});
