import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/index.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import {
  InMemoryPausedRunStore,
  InMemoryRunJournalStore,
  InMemorySessionStore,
} from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

// A pause between chunks: the model's `finish` comes well after the tool call's input has ended,
// as it does from a real model (or a loaded machine), which is when Mastra's eager tool
// execution (the default since 1.x: a tool starts on `tool-input-end`) outran the journal.
const server = useScriptedModelServer({ chunkDelayMs: 30, freshCallIds: true });

describe('Mastra runner, journaled, with eager tool execution', () => {
  it('records the model step before a tool of that step starts, however late the stream ends', async () => {
    // Prepare
    const journal = new InMemoryRunJournalStore();
    const modelStepsAtStart: number[] = [];
    const pay = createTool({
      id: 'pay',
      description: 'Send money',
      inputSchema: z.object({ to: z.string(), amount: z.number() }),
      execute: async () => {
        const entries = await journal.load('s-eager', 'run-eager');
        modelStepsAtStart.push(entries.filter((entry) => entry.kind === 'model').length);
        return 'sent';
      },
    });
    const model = createOpenAI({ baseURL: server.url, apiKey: 'k' })('scripted-model');
    const native = new Agent({
      id: 'agent',
      name: 'agent',
      instructions: '',
      model,
      tools: { pay },
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      agents: [mastraAgent(native)],
      journal,
    });
    server.push(
      { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] },
      { text: 'Paid.' },
    );

    // Act
    // The streaming turn: Mastra runs tools eagerly only in `stream` (a drained `run` generates).
    let last: unknown;
    for await (const event of runtime.stream('agent', 's-eager', 'Pay Bob 10', {
      runId: 'run-eager',
    }))
      last = event;

    // Assess: the step the call came from was in the journal when the call began, so an attempt
    // killed during the tool replays that step (and its call id) instead of asking afresh.
    expect(last).toMatchObject({ type: 'run-finished', reply: { text: 'Paid.' } });
    expect(modelStepsAtStart).toEqual([1]);
  });
});
