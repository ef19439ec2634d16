import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';

let server: ScriptedModelServer | undefined;

beforeAll(() => {
  // Traces would otherwise be exported to api.openai.com.
  setTracingDisabled(true);
});

afterEach(async () => {
  await server?.close();
});

/** The tool result the framework sent back in its follow-up request, in either API's shape. */
function toolOutputIn(request: RecordedRequest, callId: string): unknown {
  if (request.api === 'responses') {
    const items: any[] = Array.isArray(request.body.input) ? request.body.input : [];
    return items.find((item) => item.type === 'function_call_output' && item.call_id === callId)
      ?.output;
  }
  const messages: any[] = request.body.messages ?? [];
  return messages.find((message) => message.role === 'tool' && message.tool_call_id === callId)
    ?.content;
}

describe.each([
  { useResponses: true, stream: false },
  { useResponses: true, stream: true },
  { useResponses: false, stream: false },
  { useResponses: false, stream: true },
])(
  'scripted model server with @openai/agents (useResponses: $useResponses, stream: $stream)',
  ({ useResponses, stream }) => {
    it('runs a tool call and then answers with text', async () => {
      // Prepare
      server = await startScriptedModelServer({
        script: [
          {
            toolCalls: [
              { id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } },
            ],
          },
          (request) => ({ text: `The tool said: ${toolOutputIn(request, 'call_weather_1')}` }),
        ],
      });
      const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ openAIClient: client, useResponses }),
        tracingDisabled: true,
      });
      const getWeather = tool({
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `sunny in ${city}`,
      });
      const agent = new Agent({
        name: 'Weather',
        instructions: 'Answer weather questions with the tool.',
        model: 'gpt-test',
        tools: [getWeather],
      });

      // Act
      let finalOutput: unknown;
      const textDeltas: string[] = [];
      if (stream) {
        const result = await runner.run(agent, 'Weather in Paris?', { stream: true });
        for await (const event of result) {
          if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
            textDeltas.push(event.data.delta);
          }
        }
        await result.completed;
        finalOutput = result.finalOutput;
      } else {
        finalOutput = (await runner.run(agent, 'Weather in Paris?')).finalOutput;
      }

      // Assess
      expect(finalOutput).toBe('The tool said: sunny in Paris');
      if (stream) {
        expect(textDeltas.length).toBeGreaterThan(1);
        expect(textDeltas.join('')).toBe('The tool said: sunny in Paris');
      }
      expect(server.requests).toHaveLength(2);
      expect(server.requests.map((r) => [r.api, r.stream])).toEqual([
        [useResponses ? 'responses' : 'chat', stream],
        [useResponses ? 'responses' : 'chat', stream],
      ]);
      const tools = JSON.stringify(server.requests[0]?.body.tools);
      expect(tools).toContain('get_weather');
      expect(server.remaining()).toBe(0);
    });
  },
);
