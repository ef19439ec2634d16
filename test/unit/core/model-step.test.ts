import { describe, expect, it } from 'vitest';
import {
  journaledModelStep,
  modelRequestKey,
  openRunJournal,
  runWithToolContext,
  type ToolContext,
} from '../../../lib/core/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/index.js';

async function ctx(store: InMemoryRunJournalStore): Promise<ToolContext> {
  const journal = await openRunJournal({ store, sessionId: 's1', runId: 'r1', replay: true });
  return {
    runId: 'r1',
    sessionId: 's1',
    agent: 'a',
    signal: AbortSignal.timeout(5_000),
    context: {},
    journal,
  };
}

describe('journaledModelStep', () => {
  it('serves a recorded tool-calling response on the next attempt without calling the model', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    let calls = 0;
    const model = async () => ({ toolCalls: [`call_${++calls}`] });
    const hasTools = (r: { toolCalls: string[] }) => r.toolCalls.length > 0;
    const request = { messages: [{ role: 'user', content: 'hi' }], model: 'm' };

    // Act
    const attempt = await ctx(store);
    const first = await runWithToolContext(attempt, () =>
      journaledModelStep(request, model, hasTools),
    );
    await attempt.journal?.flush();
    const replayed = await runWithToolContext(await ctx(store), () =>
      journaledModelStep({ model: 'm', messages: request.messages }, model, hasTools),
    );

    // Assess: same call ids; the key ignores object key order.
    expect(replayed).toEqual(first);
    expect(calls).toBe(1);
  });

  it('does not record a step without side effects, and calls through without a journal', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    let calls = 0;
    const model = async () => ({ text: `answer ${++calls}` });

    // Act
    await runWithToolContext(await ctx(store), () =>
      journaledModelStep({ q: 1 }, model, () => false),
    );
    const direct = await journaledModelStep({ q: 1 }, model, () => true);

    // Assess
    expect(await store.load('s1', 'r1')).toEqual([]);
    expect(direct).toEqual({ text: 'answer 2' });
  });

  it('keys requests by content', () => {
    expect(modelRequestKey({ a: 1, b: [1, 2] })).toBe(modelRequestKey({ b: [1, 2], a: 1 }));
    expect(modelRequestKey({ a: 1 })).not.toBe(modelRequestKey({ a: 2 }));
  });
});
