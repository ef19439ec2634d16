import { createOpenAI } from '@ai-sdk/openai';
import { tool as langchainTool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { tool as openaiTool, Agent as SdkAgent } from '@openai/agents';
import { tool as aiTool, jsonSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { openaiAgent } from '../../../lib/frameworks/openai/index.js';

const WEATHER = { name: 'get_weather', description: 'Weather for a city.' };
const skill = {
  id: 'get_weather',
  name: 'get_weather',
  description: WEATHER.description,
  tags: ['tool'],
};

describe('A2A cards: skills derived from the native agent’s tools', () => {
  it('openai: the SDK agent’s tools', () => {
    // Prepare
    const weather = openaiTool({
      ...WEATHER,
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => city,
    });

    // Act
    const card = openaiAgent(new SdkAgent({ name: 'o', tools: [weather] })).card();

    // Assess
    expect(card.skills).toEqual([skill]);
  });

  it('ai-sdk: the definition’s ToolSet', () => {
    // Prepare
    const model = createOpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' })('m');
    const weather = aiTool({
      description: WEATHER.description,
      inputSchema: jsonSchema({ type: 'object', properties: {} }),
      execute: async () => 'sunny',
    });

    // Act
    const card = aiSdkAgent({ name: 'a', model, tools: { get_weather: weather } }).card();

    // Assess
    expect(card.skills).toEqual([skill]);
  });

  it('langgraph: the graph’s tool nodes', () => {
    // Prepare
    const weather = langchainTool(async () => 'sunny', {
      ...WEATHER,
      schema: z.object({ city: z.string() }),
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('tools', new ToolNode([weather]))
      .addEdge(START, 'tools')
      .addEdge('tools', END)
      .compile();

    // Act
    const card = langgraphAgent({ name: 'l', graph }).card();

    // Assess
    expect(card.skills).toEqual([skill]);
  });

  it('declared skills win over derived ones', () => {
    // Prepare
    const declared = { id: 'x', name: 'X', description: 'Declared', tags: [] };
    const weather = openaiTool({
      ...WEATHER,
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => city,
    });

    // Act
    const card = openaiAgent(new SdkAgent({ name: 'o', tools: [weather] }), {
      skills: [declared],
    }).card();

    // Assess
    expect(card.skills).toEqual([declared]);
  });
});
