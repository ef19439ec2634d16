import { describe, expect, it } from 'vitest';
import { openRunJournal } from '../../../lib/core/run-journal.js';
import {
  runWithToolContext,
  type ToolContext,
  tryToolContext,
} from '../../../lib/core/tool-context.js';
import { withToolEffects as aiSdkEffects } from '../../../lib/frameworks/ai-sdk/index.js';
import { withToolEffects as langgraphEffects } from '../../../lib/frameworks/langgraph/index.js';
import { withToolEffects } from '../../../lib/frameworks/openai/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { effectsOf, guardNativeTool } from '../../../lib/tools/guard.js';

const base: ToolContext = {
  runId: 'run-1',
  sessionId: 's-1',
  agent: 'agent',
  signal: new AbortController().signal,
  context: {},
};

async function withJournal<T>(store: InMemoryRunJournalStore, fn: () => Promise<T>): Promise<T> {
  const journal = await openRunJournal({ store, sessionId: 's-1', runId: 'run-1', replay: true });
  return runWithToolContext({ ...base, journal }, fn);
}

describe('guardNativeTool for runners', () => {
  it('journals a resumed execution under its own entry, with the call id and key unchanged', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const seen: (string | undefined)[][] = [];
    const run = async () => {
      const ctx = tryToolContext();
      seen.push([ctx?.callId, ctx?.idempotencyKey]);
      return seen.length;
    };

    // Act
    const first = await withJournal(store, () =>
      guardNativeTool({ callId: 'c1', tool: 'pay' }, run),
    );
    const resumed = await withJournal(store, () =>
      guardNativeTool({ callId: 'c1', tool: 'pay', entry: 'c1#1' }, run),
    );
    const replayed = await withJournal(store, () =>
      guardNativeTool({ callId: 'c1', tool: 'pay', entry: 'c1#1' }, run),
    );

    // Assess
    expect([first, resumed, replayed]).toEqual([1, 2, 2]);
    expect(seen).toEqual([
      ['c1', 'run-1:c1'],
      ['c1', 'run-1:c1'],
    ]);
    expect((await store.load('s-1', 'run-1')).map((e) => e.kind === 'tool' && e.callId)).toEqual([
      'c1',
      'c1#1',
    ]);
  });

  it('only runs a call without a call id', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    let runs = 0;

    // Act
    for (let i = 0; i < 2; i++) {
      await withJournal(store, () =>
        guardNativeTool({ callId: undefined, tool: 'pay' }, () => ++runs),
      );
    }

    // Assess
    expect(runs).toBe(2);
    expect(await store.load('s-1', 'run-1')).toEqual([]);
  });

  it("each framework's withToolEffects is the one declareEffects the guard reads", () => {
    // Prepare
    const tools = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];

    // Act
    withToolEffects(tools[0]!, { idempotent: true });
    aiSdkEffects(tools[1]!, { readOnly: true });
    langgraphEffects(tools[2]!, { onUnknownOutcome: 'pause' });

    // Assess
    expect(tools.map(effectsOf)).toEqual([
      { idempotent: true },
      { readOnly: true },
      { onUnknownOutcome: 'pause' },
    ]);
  });
});
