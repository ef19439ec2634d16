import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import { inject } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { buildDeployment } from '../../../lib/aws/wiring/deployment.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';
import { writerAgents } from '../../helpers/faults/writer-tools.js';
import { newClient, newTable } from '../stores/dynamo.js';

export const payments: { to: string; amount: number }[] = [];

export interface DeploymentOptions {
  /** Where the stores' DynamoDB client goes (a fault proxy); the table is made on dynalite. */
  dynamoEndpoint?: string;
  /** The `writer` agent's `append_line` tool appends each line here: a real side effect. */
  effectsFile?: string;
}

/**
 * A deployment on a fresh dynalite table whose `payer` agent asks before paying, and whose
 * `writer` agent appends a line to a file (count the file's lines to count tool effects).
 */
export async function deployment(
  server: ScriptedModelServer,
  env: Record<string, string> = {},
  options: DeploymentOptions = {},
) {
  const endpoint = inject('dynaliteEndpoint');
  const { tableName } = await newTable(endpoint);
  const effectsFile = options.effectsFile;
  const sendPayment = tool({
    name: 'send_payment',
    description: 'Send money',
    parameters: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: async (args) => {
      payments.push(args);
      return `sent ${args.amount} to ${args.to}`;
    },
  });
  const openai = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
  const native = new SdkAgent({ name: 'payer', model: 'scripted-model', tools: [sendPayment] });
  const config = loadConfig({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint, ...env });
  return buildDeployment(
    config,
    {
      modules: [
        new OpenAIModule([native, ...writerAgents(effectsFile)], {
          runConfig: {
            modelProvider: new OpenAIProvider({ openAIClient: openai, useResponses: true }),
          },
        }),
      ],
    },
    { client: newClient(options.dynamoEndpoint ?? endpoint) },
  );
}

/** A sample event from events/, with placeholders replaced. */
export function sampleEvent(path: string, replace: Record<string, string> = {}): any {
  let text = readFileSync(join(import.meta.dirname, '../../../events', path), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.replaceAll(from, to);
  return JSON.parse(text);
}
