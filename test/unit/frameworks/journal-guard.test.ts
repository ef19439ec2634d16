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
import {
  asksToRunAgain,
  effectsOf,
  gateDecision,
  gateInterruption,
  guardNativeTool,
  unknownOutcomeError,
} from '../../../lib/tools/guard.js';

const base: ToolContext = {
  runId: 'run-1',
  sessionId: 's-1',
  agent: 'agent',
  signal: new AbortController().signal,
  context: {},
};

/** One attempt: its journal is flushed when `fn` ends, as the runtime does when a runner ends. */
async function withJournal<T>(store: InMemoryRunJournalStore, fn: () => Promise<T>): Promise<T> {
  const journal = await openRunJournal({ store, sessionId: 's-1', runId: 'run-1', replay: true });
  try {
    return await runWithToolContext({ ...base, journal }, fn);
  } finally {
    await journal.flush();
  }
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

  it("asks a framework's gate about an unfinished call of a pause tool, under its own interruption id", async () => {
    // Prepare: an earlier attempt started c1 and never finished it.
    const store = new InMemoryRunJournalStore();
    await store.startCall('s-1', 'run-1', 'c1', 'pay');
    const pause = { onUnknownOutcome: 'pause' } as const;
    let runs = 0;

    // Act
    const asked = await withJournal(store, async () => [
      asksToRunAgain('c1', pause),
      asksToRunAgain('c1', undefined),
      asksToRunAgain('c2', pause),
    ]);
    const interruptions = await withJournal(store, async () => [
      gateInterruption('c1'),
      gateInterruption('c2'),
    ]);
    // Past the gate without a rerun decision (approved before): the call is not run again.
    const err = await withJournal(store, () =>
      guardNativeTool({ callId: 'c1', tool: 'pay', effects: pause }, () => ++runs),
    ).catch((e: unknown) => e);

    // Assess
    expect(asked).toEqual([true, false, false]);
    expect(interruptions).toEqual([
      { id: 'c1:unknown-outcome', message: expect.stringContaining('outcome is unknown') },
      { id: 'c2' },
    ]);
    const decisions = [{ id: 'c1:unknown-outcome', status: 'approved' as const }];
    expect(gateDecision(decisions, 'c1')).toBe(decisions[0]);
    expect(gateDecision(decisions, 'c2')).toBeUndefined();
    expect(runs).toBe(0);
    expect(unknownOutcomeError(err)?.error.kind).toBe('tool-outcome-unknown');
    expect(unknownOutcomeError(new Error('other'))).toBeUndefined();
  });
});
