import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  InvalidRequest,
  openRunJournal,
  type RunJournal,
  runWithToolContext,
  type ToolContext,
  tryToolContext,
} from '../../../lib/core/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/index.js';
import {
  ApprovalPending,
  declareEffects,
  defineTool,
  Executor,
  effectsOf,
  guardNativeTool,
  InMemoryToolLedger,
  modelVisibleError,
  RunLimitExceeded,
  type ToolEffects,
} from '../../../lib/tools/index.js';

function ctx(journal?: RunJournal, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    runId: 'r1',
    sessionId: 's1',
    agent: 'a',
    signal: new AbortController().signal,
    context: {},
    ...(journal ? { journal } : {}),
    ...extra,
  };
}

/** A tool whose every real run is counted, with the key it saw. */
function payTool(effects?: ToolEffects) {
  const runs: string[] = [];
  const spec = defineTool({
    name: 'pay',
    description: 'Pays',
    input: z.object({ amount: z.number() }),
    ...(effects ? { effects } : {}),
    handler: ({ amount }, c) => {
      runs.push(c.idempotencyKey);
      return { paid: amount };
    },
  });
  return { spec, runs };
}

const journalOf = (store: InMemoryRunJournalStore, replay = true) =>
  openRunJournal({ store, sessionId: 's1', runId: 'r1', replay });

describe('Executor under a run journal', () => {
  it('gives every call a stable idempotency key, with or without a journal', async () => {
    // Prepare
    const { spec, runs } = payTool();
    const executor = new Executor();
    const store = new InMemoryRunJournalStore();

    // Act
    await executor.runSpec(spec, { amount: 1 }, ctx(), { callId: 'c1' });
    await executor.runSpec(spec, { amount: 1 }, ctx(await journalOf(store)), { callId: 'c2' });

    // Assess
    expect(runs).toEqual(['r1:c1', 'r1:c2']);
  });

  it('runs a call once across attempts: the replay returns the recorded result, no ledger row twice', async () => {
    // Prepare
    const { spec, runs } = payTool();
    const ledger = new InMemoryToolLedger();
    const executor = new Executor({ ledger });
    const store = new InMemoryRunJournalStore();
    const attempt = await journalOf(store, false);
    await executor.runSpec(spec, { amount: 5 }, ctx(attempt), { callId: 'c1' });
    await attempt.flush();

    // Act: the next attempt of the same run, on a new executor (another instance).
    const again = await new Executor({ ledger }).runSpec(
      spec,
      { amount: 5 },
      ctx(await journalOf(store)),
      { callId: 'c1' },
    );

    // Assess
    expect(again).toEqual({ paid: 5 });
    expect(runs).toHaveLength(1);
    expect((await ledger.list('s1')).map((e) => e.outcome)).toEqual(['ok']);
  });

  it('gives the model tool-outcome-unknown for a call that started and never finished', async () => {
    // Prepare
    const { spec, runs } = payTool();
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'pay');

    // Act
    const err = await new Executor()
      .runSpec(spec, { amount: 5 }, ctx(await journalOf(store)), { callId: 'c1' })
      .catch((e: unknown) => e);

    // Assess
    expect(modelVisibleError(err).error.kind).toBe('tool-outcome-unknown');
    expect(runs).toEqual([]);
  });

  it('pauses for a person when the tool asks to; approved runs it again, denied tells the model', async () => {
    // Prepare
    const { spec, runs } = payTool({ onUnknownOutcome: 'pause' });
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'pay');
    await store.startCall('s1', 'r1', 'c2', 'pay');
    const executor = new Executor();
    // The call's own id (its original approval) does not decide a rerun.
    const decided = (status: 'approved' | 'denied') => ({
      c1: { status: 'approved' as const },
      'c1:unknown-outcome': { status },
      'c2:unknown-outcome': { status },
    });

    // Act
    const pending = await executor
      .runSpec(spec, { amount: 5 }, ctx(await journalOf(store)), { callId: 'c1' })
      .catch((e: unknown) => e);
    const original = await executor
      .runSpec(
        spec,
        { amount: 5 },
        ctx(await journalOf(store), { decisions: { c1: { status: 'approved' } } }),
        {
          callId: 'c1',
        },
      )
      .catch((e: unknown) => e);
    const approved = await executor.runSpec(
      spec,
      { amount: 5 },
      ctx(await journalOf(store), { decisions: decided('approved') }),
      { callId: 'c1' },
    );
    const denied = await executor
      .runSpec(spec, { amount: 5 }, ctx(await journalOf(store), { decisions: decided('denied') }), {
        callId: 'c2',
      })
      .catch((e: unknown) => e);

    // Assess
    expect(pending).toBeInstanceOf(ApprovalPending);
    expect((pending as ApprovalPending).interruption).toMatchObject({
      id: 'c1:unknown-outcome',
      kind: 'tool-approval',
      toolName: 'pay',
      arguments: { amount: 5 },
      message: expect.stringContaining('outcome is unknown'),
    });
    expect(original).toBeInstanceOf(ApprovalPending);
    expect(approved).toEqual({ paid: 5 });
    expect(modelVisibleError(denied).error.kind).toBe('tool-outcome-unknown');
    expect(runs).toEqual(['r1:c1']);
  });

  it('runs an idempotent tool again with the same key after an unknown outcome', async () => {
    // Prepare
    const { spec, runs } = payTool({ idempotent: true });
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'pay');

    // Act
    await new Executor().runSpec(spec, { amount: 5 }, ctx(await journalOf(store)), {
      callId: 'c1',
    });

    // Assess
    expect(runs).toEqual(['r1:c1']);
  });

  it('counts run limits durably: a new attempt on a new executor continues the count', async () => {
    // Prepare
    const { spec } = payTool();
    const limits = { toolCallsPerRun: 2 };
    const store = new InMemoryRunJournalStore();
    const first = new Executor({ limits });
    const attempt = await journalOf(store);
    await first.runSpec(spec, { amount: 1 }, ctx(attempt), { callId: 'c1' });
    await first.runSpec(spec, { amount: 2 }, ctx(attempt), { callId: 'c2' });
    await attempt.flush();

    // Act
    const second = new Executor({ limits });
    const replayed = await second.runSpec(spec, { amount: 1 }, ctx(await journalOf(store)), {
      callId: 'c1',
    });
    const third = await second
      .runSpec(spec, { amount: 3 }, ctx(await journalOf(store)), { callId: 'c3' })
      .catch((e: unknown) => e);

    // Assess: a replayed call is not counted again; a third new one is over the limit.
    expect(replayed).toEqual({ paid: 1 });
    expect(third).toBeInstanceOf(RunLimitExceeded);
  });

  it('refuses invalid effects with a typed error', () => {
    // Act
    const attempt = () =>
      defineTool({
        name: 'bad',
        description: 'x',
        input: z.object({}),
        effects: { onUnknownOutcome: 'retry' } as unknown as ToolEffects,
        handler: () => 1,
      });

    // Assess
    expect(attempt).toThrow(InvalidRequest);
    expect(attempt).toThrow(/Invalid effects of tool "bad" at onUnknownOutcome/);
  });
});

describe('guardNativeTool', () => {
  it('runs a native call once under the journal, with its key in the tool context', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const seen: (string | undefined)[] = [];
    const native = async () => {
      seen.push(tryToolContext()?.idempotencyKey);
      return 'booked';
    };
    const call = { tool: 'book', callId: 'call_1' };

    // Act
    const attempt = await journalOf(store, false);
    const first = await runWithToolContext(ctx(attempt), () => guardNativeTool(call, native));
    await attempt.flush();
    const replayed = await runWithToolContext(ctx(await journalOf(store)), () =>
      guardNativeTool(call, native),
    );

    // Assess
    expect([first, replayed]).toEqual(['booked', 'booked']);
    expect(seen).toEqual(['r1:call_1']);
  });

  it('throws tool-outcome-unknown for an unfinished native call, and runs without a journal', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'call_1', 'book');
    let runs = 0;
    const native = async () => ++runs;

    // Act
    const err = await runWithToolContext(ctx(await journalOf(store)), () =>
      guardNativeTool({ tool: 'book', callId: 'call_1' }, native),
    ).catch((e: unknown) => e);
    const plain = await runWithToolContext(ctx(), () =>
      guardNativeTool({ tool: 'book', callId: 'call_1' }, (c) => c.idempotencyKey),
    );

    // Assess
    expect(modelVisibleError(err).error.kind).toBe('tool-outcome-unknown');
    expect(runs).toBe(0);
    expect(plain).toBe('r1:call_1');
  });
});

describe('declareEffects', () => {
  it("keeps a native tool's effects by the tool object, for runners to pass to the guard", async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const native = declareEffects({ name: 'get_time' }, { readOnly: true });
    let runs = 0;

    // Act
    const journal = await journalOf(store, false);
    for (let i = 0; i < 2; i++) {
      await runWithToolContext(ctx(journal), () =>
        guardNativeTool(
          { tool: 'get_time', callId: 'c1', effects: effectsOf(native) },
          () => ++runs,
        ),
      );
    }

    // Assess: read-only runs again, unjournaled.
    expect(effectsOf(native)).toEqual({ readOnly: true });
    expect(effectsOf({})).toBeUndefined();
    expect(runs).toBe(2);
    expect(await store.load('s1', 'r1')).toEqual([]);
  });
});
