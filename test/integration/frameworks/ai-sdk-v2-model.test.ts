import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, type LanguageModel, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

// Fresh call ids in every response: a retried run finds its calls only by replay.
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-v2-model-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * The OpenAI provider's model seen through the v2 specification (AI SDK 5 providers): finish
 * reason a string, usage flat, every other part the same. No AI SDK 5 provider is installed, so
 * the v2 model is the real provider behind this view; it still talks HTTP to the scripted model.
 */
function asV2(model: any): LanguageModel {
  const finishReason = (reason: any) => (reason?.unified === 'other' ? 'unknown' : reason?.unified);
  const usage = (u: any) => ({
    inputTokens: u?.inputTokens?.total,
    outputTokens: u?.outputTokens?.total,
    totalTokens: (u?.inputTokens?.total ?? 0) + (u?.outputTokens?.total ?? 0),
  });
  return {
    specificationVersion: 'v2',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options: unknown) => {
      const result = await model.doGenerate(options);
      return {
        ...result,
        finishReason: finishReason(result.finishReason),
        usage: usage(result.usage),
      };
    },
    doStream: async (options: unknown) => {
      const result = await model.doStream(options);
      const toV2 = new TransformStream({
        transform(part: any, controller) {
          if (part.type !== 'finish') return controller.enqueue(part);
          const { finishReason: reason, usage: used, ...rest } = part;
          controller.enqueue({ ...rest, finishReason: finishReason(reason), usage: usage(used) });
        },
      });
      return { ...result, stream: result.stream.pipeThrough(toV2) };
    },
  } as unknown as LanguageModel;
}

describe('ai-sdk runner: a model on the v2 specification', () => {
  it('is journaled: a run retried after a crash does not ask the model again nor run its tool again', async () => {
    // Prepare
    const effects = join(dir, 'effects.log');
    const execute = async ({ to, amount }: { to: string; amount: number }) => {
      await appendFile(effects, `${tryToolContext()?.idempotencyKey}\n`);
      return `sent ${amount} to ${to}`;
    };
    const inputSchema = jsonSchema<{ to: string; amount: number }>({
      type: 'object',
      properties: { to: { type: 'string' }, amount: { type: 'number' } },
      required: ['to', 'amount'],
    });
    const model = asV2(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('scripted-model'));
    const crash = new CrashBeforeSave();
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [
        aiSdkAgent({
          name: 'agent',
          model,
          tools: { pay: tool({ description: 'Send money', inputSchema, execute }) },
        }),
      ],
      journal: new InMemoryRunJournalStore(),
      postHooks: [crash],
    });
    const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };
    server.push(payCall, { text: 'Paid.' }, { text: 'Paid Bob.' });
    crash.arm();
    const options = { runId: 'run-v2' };

    // Act
    const first = await collect(runtime.stream('agent', 's-v2', 'Pay Bob 10', options));
    const again = await collect(runtime.stream('agent', 's-v2', 'Pay Bob 10', options));

    // Assess
    expect(first.at(-1)).toMatchObject({ type: 'run-error' });
    expect(again.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
    const callId = JSON.stringify(server.requests[1]?.body).match(/call_[A-Za-z0-9]{24}/)?.[0];
    const lines = (await readFile(effects, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toEqual([`run-v2:${callId}`]);
    // The recorded tool step was served from the journal: only the step after it was asked.
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).toContain(callId);
  });
});
