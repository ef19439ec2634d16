/*
 * An agents entry for worker processes (worker-process.ts): the `writer` (native tool) and
 * `spec-writer` (ToolSpec) agents, whose `append_line` tool appends a line to EFFECTS_FILE (count
 * lines to count real tool runs), on the scripted model server at MODEL_URL.
 */
import { OpenAIProvider } from '@openai/agents';
import OpenAI from 'openai';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { writerAgents } from './writer-tools.js';

const openai = new OpenAI({ apiKey: 'k', baseURL: process.env.MODEL_URL, maxRetries: 0 });

export const modules = [
  new OpenAIModule(writerAgents(process.env.EFFECTS_FILE), {
    runConfig: { modelProvider: new OpenAIProvider({ openAIClient: openai, useResponses: true }) },
  }),
];
