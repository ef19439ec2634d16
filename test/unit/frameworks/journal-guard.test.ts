import { describe, expect, it } from 'vitest';
import { openRunJournal } from '../../../lib/core/run-journal.js';
import {
  runWithToolContext,
  type ToolContext,
  tryToolContext,
} from '../../../lib/core/tool-context.js';
import {
  guardToolCall,
  toolEffects,
  withToolEffects,
} from '../../../lib/frameworks/base/journal.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';

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

describe('guardToolCall', () => {
  it('runs the call once across attempts, with the call id and idempotency key bound', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const seen: (string | undefined)[][] = [];
    const run = async () => {
      const ctx = tryToolContext();
      seen.push([ctx?.callId, ctx?.idempotencyKey]);
      return { paid: 10 };
    };

    // Act
    const first = await withJournal(store, () => guardToolCall({ callId: 'c1', tool: 'pay' }, run));
    const again = await withJournal(store, () => guardToolCall({ callId: 'c1', tool: 'pay' }, run));

    // Assess
    expect(first).toEqual({ paid: 10 });
    expect(again).toEqual({ paid: 10 });
    expect(seen).toEqual([['c1', 'run-1:c1']]);
  });

  it('only runs outside a journaled run', async () => {
    // Prepare
    let runs = 0;
    const run = async () => ++runs;

    // Act
    await runWithToolContext(base, () => guardToolCall({ callId: 'c1', tool: 'pay' }, run));
    await guardToolCall({ callId: 'c1', tool: 'pay' }, run);

    // Assess
    expect(runs).toBe(2);
  });

  it('keeps the effects a native tool declares', () => {
    // Prepare
    const tool = { name: 'pay' };

    // Act
    const same = withToolEffects(tool, { idempotent: true });

    // Assess
    expect(same).toBe(tool);
    expect(toolEffects(tool)).toEqual({ idempotent: true });
    expect(toolEffects({})).toBeUndefined();
  });
});
