import { describe, expect, it } from 'vitest';
import { costOf, priceFor } from '../../../lib/app/model-prices.js';
import type { StoredBatch } from '../../../lib/app/ports/run-events.js';
import { buildTimeline, type ToolItem } from '../../../lib/app/timeline-build.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import type { StreamEvent } from '../../../lib/core/events.js';
import type { JournalEntry } from '../../../lib/core/journal.js';

const runId = 'r1';
type Loose = { type: string; [key: string]: unknown };
const batch = (seq: number, at: number, ...events: Loose[]): StoredBatch => ({
  seq,
  at,
  events: events.map((e) => ({ runId, ...e }) as StreamEvent),
});
const price = priceFor('demo');

describe('a run timeline, from stored events and the journal', () => {
  it('a pause, a denial, then a retry whose replayed call is told apart from one that ran', () => {
    // Prepare: attempt 0 asks for two calls and pauses on `book`; the resume (attempt 1) is
    // denied `book` and runs `note`, then is retried (attempt 2) and replays `note`.
    const batches = [
      batch(0, 1_000, { type: 'run-started', sessionId: 's', agent: 'demo' }),
      batch(1, 1_100, { type: 'step-start', stepId: 'st1' }),
      batch(
        2,
        1_400,
        { type: 'tool-call-start', toolCallId: 'book-1', toolName: 'book' },
        { type: 'tool-call-args', toolCallId: 'book-1', delta: '{"people"' },
        { type: 'tool-call-args', toolCallId: 'book-1', delta: ':2}' },
        {
          type: 'step-end',
          stepId: 'st1',
          usage: { inputTokens: 1_000_000, outputTokens: 500_000 },
        },
      ),
      batch(3, 1_450, {
        type: 'run-paused',
        sessionId: 's',
        interruptions: [{ id: 'book-1', kind: 'tool-approval', toolName: 'book' }],
      }),
      batch(
        4,
        9_000,
        { type: 'run-started', sessionId: 's', agent: 'demo' },
        { type: 'tool-call-result', toolCallId: 'book-1', toolName: 'book', result: 'denied' },
        { type: 'tool-call-start', toolCallId: 'note-1', toolName: 'note' },
      ),
      batch(5, 9_500, { type: 'run-retrying', code: 'store-throttled', message: 'later' }),
      batch(
        6,
        12_000,
        { type: 'run-started', sessionId: 's', agent: 'demo' },
        {
          type: 'tool-call-result',
          toolCallId: 'note-1',
          toolName: 'note',
          result: 1,
          replayed: true,
        },
        { type: 'step-start', stepId: 'st1' },
        { type: 'message-start', messageId: 'm' },
        { type: 'text-delta', messageId: 'm', delta: 'Not booked.' },
        { type: 'step-end', stepId: 'st1', usage: { inputTokens: 10, outputTokens: 2 } },
      ),
      batch(7, 12_300, { type: 'run-finished', reply: {} }),
    ];
    const journal: JournalEntry[] = [
      { kind: 'tool', callId: 'note-1', tool: 'note', status: 'done', at: 9_100, doneAt: 9_130 },
    ];

    // Act
    const { items, totals } = buildTimeline(batches, journal, price, 900);

    // Assess
    expect(items.map((i) => `${i.kind}@${i.attempt}`)).toEqual([
      'model@0',
      'tool@0',
      'pause@0',
      'decision@1',
      'tool@1',
      'retry@1',
      'model@2',
      'finish@2',
    ]);
    const [first, book, , decision, note, , second] = items;
    expect(first).toMatchObject({ startAt: 1_100, endAt: 1_400, durationMs: 300 });
    // 1M in at $0.40 + 0.5M out at $1.60 per million.
    expect(first?.kind === 'model' && first.costUsd).toBeCloseTo(1.2, 10);
    expect(book).toMatchObject({ arguments: { people: 2 }, result: 'denied', replayed: false });
    expect((book as ToolItem).journal).toBeUndefined();
    expect(decision).toMatchObject({
      decisions: [{ id: 'book-1', toolName: 'book', outcome: 'denied' }],
      startAt: 1_450,
      endAt: 9_000,
    });
    // Journaled, but replayed in the attempt shown: its time is the events', not a second run.
    expect(note).toMatchObject({ replayed: true, timing: 'events', journal: { doneAt: 9_130 } });
    expect(second).toMatchObject({ text: 'Not booked.', usage: { inputTokens: 10 } });
    expect(totals).toMatchObject({
      modelCalls: 2,
      toolCalls: 2,
      replayedCalls: 1,
      inputTokens: 1_000_010,
      outputTokens: 500_002,
    });
    expect(totals.costUsd).toBeCloseTo(1.2 + costOf({ inputTokens: 10, outputTokens: 2 }, price));
  });

  it("times a call that ran by the journal's clock, an approved decision by its journal entry", () => {
    // Prepare
    const batches = [
      batch(0, 100, { type: 'run-started', sessionId: 's', agent: 'demo' }),
      batch(1, 200, { type: 'tool-call-start', toolCallId: 'c', toolName: 'book' }),
      batch(2, 250, {
        type: 'run-paused',
        sessionId: 's',
        interruptions: [{ id: 'c', kind: 'tool-approval', toolName: 'book' }],
      }),
      batch(
        3,
        5_000,
        { type: 'run-started', sessionId: 's', agent: 'demo' },
        { type: 'tool-call-result', toolCallId: 'c', toolName: 'book', result: { ok: 1 } },
      ),
    ];
    const journal: JournalEntry[] = [
      { kind: 'tool', callId: 'c', tool: 'book', status: 'done', at: 4_800, doneAt: 4_842 },
    ];

    // Act
    const { items } = buildTimeline(batches, journal, price, 0);

    // Assess
    const tool = items.find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({
      timing: 'journal',
      startAt: 4_800,
      endAt: 4_842,
      durationMs: 42,
      requestedAt: 200,
    });
    expect(items.find((i) => i.kind === 'decision')).toMatchObject({
      decisions: [{ id: 'c', outcome: 'approved' }],
    });
  });
});

describe('the price table of the estimate', () => {
  it('uses the agent row, then the configured default, then the built-in one', () => {
    const configured = {
      demo: { model: 'm-demo', inputPerMillion: 1, outputPerMillion: 2 },
      default: { model: 'm-any', inputPerMillion: 3, outputPerMillion: 4 },
    };
    expect(priceFor('demo', configured)).toMatchObject({ model: 'm-demo', source: 'MODEL_PRICES' });
    expect(priceFor('other', configured)).toMatchObject({ model: 'm-any', key: 'default' });
    expect(priceFor('other')).toMatchObject({ model: 'gpt-4.1-mini', source: 'built-in' });
  });

  it('MODEL_PRICES is checked at cold start: bad JSON or a bad row names the variable', () => {
    const good = loadConfig({
      MODEL_PRICES: '{"demo":{"model":"x","inputPerMillion":1,"outputPerMillion":2}}',
    });
    expect(good.MODEL_PRICES?.demo?.outputPerMillion).toBe(2);
    for (const bad of ['{', '{"demo":{"model":"x","inputPerMillion":-1,"outputPerMillion":2}}']) {
      expect(() => loadConfig({ MODEL_PRICES: bad })).toThrow(/MODEL_PRICES/);
    }
  });
});
