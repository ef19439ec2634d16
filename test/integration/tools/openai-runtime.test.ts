import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/index.js';
import { OPENAI_INTEGRATION, OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer();

/** A Runtime whose OpenAI agent has one ToolSpec tool, exported through a real Executor. */
function setup() {
  const seen: { city: string; callId: string; runId: string }[] = [];
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().min(1) }),
    handler: ({ city }, ctx) => {
      seen.push({ city, callId: ctx.callId, runId: ctx.runId });
      return { city, forecast: 'sunny' };
    },
  });
  const ledger = new InMemoryToolLedger();
  const executor = new Executor({ ledger });
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  const agent = new SdkAgent({
    name: 'assistant',
    instructions: 'You are helpful.',
    model: 'scripted-model',
    tools: [OPENAI_INTEGRATION.exportTool(weather, { executor })],
  });
  const module = new OpenAIModule([agent], {
    runConfig: { modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) },
  });
  const runtime = new Runtime({ sessions: new InMemorySessionStore(), modules: [module] });
  return { runtime, ledger, seen };
}

describe('OpenAI integration through the Runtime', () => {
  it('runs an exported ToolSpec tool with the SDK call id and records it in the ledger', async () => {
    // Prepare
    const { runtime, ledger, seen } = setup();
    server.push(
      { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Sunny in Paris.' },
    );

    // Act
    const reply = await runtime.run('assistant', 's-ledger', 'Weather in Paris?');

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    expect(seen).toEqual([{ city: 'Paris', callId: 'call_w1', runId: reply.runId }]);
    expect(await ledger.list('s-ledger')).toEqual([
      expect.objectContaining({
        sessionId: 's-ledger',
        runId: reply.runId,
        callId: 'call_w1',
        tool: 'get_weather',
        outcome: 'ok',
        approval: 'not-required',
        attempts: 1,
      }),
    ]);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sunny');
  });

  it('shows the model the invalid-arguments error for bad arguments and the run goes on', async () => {
    // Prepare
    const { runtime, ledger, seen } = setup();
    server.push(
      { toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: { town: 3 } }] },
      { text: 'Sorry, let me ask again.' },
    );

    // Act
    const events = [];
    for await (const event of runtime.stream('assistant', 's-bad', 'Weather?')) events.push(event);

    // Assess
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Sorry, let me ask again.' },
    });
    expect(seen).toEqual([]);
    const next = JSON.stringify(server.requests[1]?.body);
    expect(next).toContain('invalid-arguments');
    expect(next).toContain('Invalid arguments for tool');
    expect(next).not.toContain('ZodError');
    const entries = await ledger.list('s-bad');
    expect(entries).toEqual([
      expect.objectContaining({ callId: 'call_bad', outcome: 'invalid-args' }),
    ]);
    expect(entries[0]?.errorKind).toBe('invalid-arguments');
  });

  it('leaves arguments that are not JSON to the SDK, which answers the model itself', async () => {
    // Prepare
    const { runtime, ledger, seen } = setup();
    server.push(
      { toolCalls: [{ id: 'call_nojson', name: 'get_weather', arguments: '{"city": ' }] },
      { text: 'Let me try again.' },
    );

    // Act
    const reply = await runtime.run('assistant', 's-nojson', 'Weather?');

    // Assess: the SDK parses before calling the tool, so our executor never sees this call.
    expect(reply).toMatchObject({ status: 'completed', text: 'Let me try again.' });
    expect(seen).toEqual([]);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('valid JSON');
    expect(await ledger.list('s-nojson')).toEqual([]);
  });
});
