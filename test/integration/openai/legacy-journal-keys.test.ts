import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Model,
  type ModelRequest,
  OpenAIResponsesModel,
  Agent as SdkAgent,
  type ToolInputParameters,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, JournalRecords, RunJournalStore } from '../../../lib/core/journal.js';
import { canonicalJson } from '../../../lib/core/model-step.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { openaiAgent } from '../../../lib/frameworks/openai/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/journal.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/scripted-model-server.js';

/**
 * The OpenAI runner's model-request key as the build before chained keys computed it, copied
 * from that build (`git show 6e6bf14^:lib/frameworks/openai/model-journal.ts`, keyOf and
 * modelRequestKey): the whole request hashed at once.
 */
function previousKeyOf(request: ModelRequest): string {
  const fields = {
    instructions: request.systemInstructions ?? null,
    input: request.input,
    tools: request.tools.map((t) => t.name),
    handoffs: request.handoffs.map((handoff) => handoff.toolName),
  };
  return `openai:${createHash('sha256').update(canonicalJson(fields)).digest('hex')}`;
}

/** A model that remembers what each request it was asked held (a journal hit never asks it). */
function spied(model: Model, seen: ModelRequest[]): Model {
  return {
    getResponse: (request) => {
      seen.push(structuredClone(request));
      return model.getResponse(request);
    },
    getStreamedResponse: (request) => {
      seen.push(structuredClone(request));
      return model.getStreamedResponse(request);
    },
  };
}

/**
 * The journal as the previous build left it: its model entries under the previous build's keys
 * (`keyOf` gives, for the n-th recorded entry, the key of the request that produced it).
 */
class PreviousBuildJournal implements RunJournalStore {
  readonly #inner = new InMemoryRunJournalStore();
  rekey: ((entry: JournalEntry, n: number) => string) | undefined;

  async load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    const entries = await this.#inner.load(sessionId, runId);
    let n = 0;
    return entries.map((entry) =>
      entry.kind === 'model' && this.rekey ? { ...entry, key: this.rekey(entry, n++) } : entry,
    );
  }

  startCall(s: string, r: string, c: string, t: string, records?: JournalRecords) {
    return this.#inner.startCall(s, r, c, t, records);
  }

  record(sessionId: string, runId: string, records: JournalRecords): Promise<void> {
    return this.#inner.record(sessionId, runId, records);
  }
}

describe('a journal written with the previous build’s model-request keys', () => {
  let server: ScriptedModelServer;
  let dir: string;
  beforeAll(async () => {
    server = await startScriptedModelServer({ freshCallIds: true });
    dir = await mkdtemp(join(tmpdir(), 'ak-legacy-keys-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const via of ['stream', 'run'] as const) {
    it(`replays after a deploy mid-run (${via}): the recorded step is not asked again, the tool runs once`, async () => {
      // Prepare
      server.reset();
      const effects = join(dir, `${via}.log`);
      const seen: ModelRequest[] = [];
      const client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      const pay = tool({
        name: 'pay',
        description: 'Send money to someone',
        parameters: {
          type: 'object',
          properties: { to: { type: 'string' }, amount: { type: 'number' } },
          required: ['to', 'amount'],
          additionalProperties: true,
        } as Extract<ToolInputParameters, { additionalProperties: true }>,
        strict: false,
        execute: async (args) => {
          const { to, amount } = args as { to: string; amount: number };
          await appendFile(effects, `${to}\t${amount}\n`);
          return `sent ${amount} to ${to}`;
        },
      });
      const model = spied(new OpenAIResponsesModel(client, 'scripted-model'), seen);
      const agent = openaiAgent(new SdkAgent({ name: 'agent', model, tools: [pay] }));
      const journal = new PreviousBuildJournal();
      const crash = new CrashBeforeSave();
      const runtime = new Runtime({
        sessions: new InMemorySessionStore(),
        pausedRuns: new InMemoryPausedRunStore(),
        agents: [agent],
        journal,
        postHooks: [crash],
      });
      const turn = () =>
        via === 'stream'
          ? collect(runtime.stream('agent', 's1', 'Pay Bob 10', { runId: 'run-1' }))
          : runtime.run('agent', 's1', 'Pay Bob 10', { runId: 'run-1' }).then((r) => [r]);
      server.push(
        { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] },
        { text: 'Paid.' },
        { text: 'Paid Bob.' },
      );
      crash.arm();
      await turn().catch(() => undefined);
      const asked = server.requests.length;
      // The one recorded step (the tool call) was the first request the model was asked.
      const first = seen[0];
      journal.rekey = () => (first ? previousKeyOf(first) : 'none');

      // Act
      const replay = await turn();

      // Assess
      expect(asked).toBe(2);
      expect(JSON.stringify(replay.at(-1))).toContain('Paid Bob.');
      // The replay asked only for the step after the tool (its output in the request).
      expect(server.requests).toHaveLength(3);
      expect(JSON.stringify(server.requests[2]?.body)).toContain('sent 10 to bob');
      expect(await readFile(effects, 'utf8')).toBe('bob\t10\n');
    });
  }
});
