/*
 * An agents entry for worker processes (worker-process.ts): the `writer` agent, whose
 * `append_line` tool appends a line to EFFECTS_FILE (count lines to count real tool runs),
 * on the scripted model server at MODEL_URL.
 */
import { appendFileSync } from 'node:fs';
import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import * as z from 'zod';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';

const appendLine = tool({
  name: 'append_line',
  description: 'Append a line to the journal',
  parameters: z.object({ line: z.string() }),
  execute: async ({ line }) => {
    appendFileSync(process.env.EFFECTS_FILE as string, `${line}\n`);
    return 'appended';
  },
});

const openai = new OpenAI({ apiKey: 'k', baseURL: process.env.MODEL_URL, maxRetries: 0 });
const writer = new SdkAgent({ name: 'writer', model: 'scripted-model', tools: [appendLine] });

export const modules = [
  new OpenAIModule([writer], {
    runConfig: { modelProvider: new OpenAIProvider({ openAIClient: openai, useResponses: true }) },
  }),
];
