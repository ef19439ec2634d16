import { interrupt } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { StreamEvent } from '../../../lib/core/events.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { LANGGRAPH_INTEGRATION, langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { Executor } from '../../../lib/tools/executor.js';
import { defineTool } from '../../../lib/tools/spec.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer();

/**
 * A ToolSpec whose handler asks a person with LangGraph's own `interrupt()`: the graph pauses
 * (never a tool error), and resumed, the handler reads the answer.
 */
function runtimeOf(journaled: boolean) {
  const runs: unknown[] = [];
  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money after asking how much',
    input: z.object({ to: z.string() }),
    handler: async ({ to }, ctx) => {
      runs.push(ctx.idempotencyKey);
      const answer = interrupt<string, { arguments?: unknown }>('How much?');
      return `moved ${String(answer.arguments)} to ${to}`;
    },
  });
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'k',
    configuration: { baseURL: server.url },
    maxRetries: 0,
  });
  const tools = [LANGGRAPH_INTEGRATION.exportTool(transfer, { executor: new Executor() })];
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [langgraphAgent({ name: 'agent', graph: createReactAgent({ llm, tools }) })],
    ...(journaled ? { journal: new InMemoryRunJournalStore() } : {}),
  });
  return { runtime, runs };
}

describe.each([false, true])(
  'langgraph: a ToolSpec handler calling interrupt() (journal: %s)',
  (journaled) => {
    it('pauses the graph; resumed, the handler reads the answer and the model the result', async () => {
      // Prepare
      const { runtime, runs } = runtimeOf(journaled);
      const call = { toolCalls: [{ id: 'call-1', name: 'transfer', arguments: { to: 'bob' } }] };
      server.push(call, { text: 'Moved.' });

      // Act
      const paused = await collect(runtime.stream('agent', 's-ask', 'Move money to Bob'));
      const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
      const id = last.interruptions?.[0]?.id ?? '';
      const decisions = [{ id, status: 'approved' as const, arguments: 25 }];
      const done = await collect(runtime.resumeStream('s-ask', last.runId, decisions));

      // Assess
      expect(last).toMatchObject({
        type: 'run-paused',
        interruptions: [{ kind: 'input', message: 'How much?' }],
      });
      expect(done.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Moved.' } });
      const final = JSON.stringify(server.requests.at(-1)?.body);
      expect(final).toContain('moved 25 to bob');
      expect(final).not.toContain('tool-failed');
      // The handler ran on the first attempt and once more on resume, both under the call's key.
      expect(runs).toEqual([`${last.runId}:call-1`, `${last.runId}:call-1`]);
    });
  },
);
