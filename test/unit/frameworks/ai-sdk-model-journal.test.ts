import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { openRunJournal } from '../../../lib/core/run-journal.js';
import type { JsonValue } from '../../../lib/core/session.js';
import { runWithToolContext } from '../../../lib/core/tool-context.js';
import { journaledModel } from '../../../lib/frameworks/ai-sdk/model-journal.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';

type Model = Pick<MockLanguageModelV3, 'doStream'>;
type StreamPart =
  Awaited<ReturnType<Model['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};
const parts = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Paying ' },
  { type: 'text-delta', id: 't1', delta: 'Bob.' },
  { type: 'text-end', id: 't1' },
  { type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: '{"to":"bob"}' },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
] as StreamPart[];
const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Pay Bob' }] }];

async function streamOnce(
  model: MockLanguageModelV3,
  store: InMemoryRunJournalStore,
  log: string[],
) {
  const journal = await openRunJournal({ store, sessionId: 's', runId: 'r', replay: true });
  // Logged (after a pause), so the test sees when the response was recorded.
  const recordModel = journal.recordModel.bind(journal);
  journal.recordModel = async (key: string, response: JsonValue) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    log.push('recorded');
    await recordModel(key, response);
  };
  const ctx = {
    runId: 'r',
    sessionId: 's',
    agent: 'a',
    signal: new AbortController().signal,
    context: {},
    journal,
  };
  return runWithToolContext(ctx, async () => {
    const wrapped = journaledModel(model) as unknown as Model;
    const { stream } = await wrapped.doStream({ prompt });
    const seen: unknown[] = [];
    for await (const part of stream as unknown as AsyncIterable<{ type: string }>) {
      log.push(part.type);
      seen.push(part);
    }
    // What the runtime does when the runner ends: the held response is written.
    await journal.flush();
    return seen;
  });
}

describe('ai-sdk journaled model', () => {
  it('releases a tool call only after the response is recorded, then replays it without the model', async () => {
    // Prepare
    const log: string[] = [];
    const store = new InMemoryRunJournalStore();
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: [...parts] }) }),
    });

    // Act
    const live = await streamOnce(model, store, log);
    const replayLog: string[] = [];
    const replayed = await streamOnce(model, store, replayLog);

    // Assess
    expect(log.indexOf('text-delta')).toBeLessThan(log.indexOf('recorded'));
    expect(log.indexOf('recorded')).toBeLessThan(log.indexOf('tool-call'));
    expect(model.doStreamCalls).toHaveLength(1);
    expect(replayed).toContainEqual(
      expect.objectContaining({ type: 'tool-call', toolCallId: 'call_1' }),
    );
    expect(replayLog).not.toContain('recorded');
    expect(replayed.filter((p: any) => p.type === 'tool-call')).toEqual(
      live.filter((p: any) => p.type === 'tool-call'),
    );
  });

  it('records nothing for a response without tool calls', async () => {
    // Prepare
    const log: string[] = [];
    const store = new InMemoryRunJournalStore();
    const text = parts.filter((p) => p.type !== 'tool-call');
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: [...text] }) }),
    });

    // Act
    await streamOnce(model, store, log);
    await streamOnce(model, store, []);

    // Assess
    expect(log).not.toContain('recorded');
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('releases no tool call of a step whose stream fails after it, and records nothing', async () => {
    // Prepare
    const log: string[] = [];
    const store = new InMemoryRunJournalStore();
    const failing = [...parts.slice(0, -1), { type: 'error', error: new Error('reset') }];
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: failing as StreamPart[] }),
      }),
    });

    // Act
    const seen = await streamOnce(model, store, log);
    await streamOnce(model, store, []);

    // Assess
    expect(log).not.toContain('recorded');
    expect(seen.map((p: any) => p.type)).toEqual([
      'stream-start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'error',
    ]);
    // Not recorded: a re-drive asks the model again.
    expect(model.doStreamCalls).toHaveLength(2);
  });
});
