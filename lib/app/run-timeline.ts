import type { RunJournalStore } from '../core/journal.js';
import { boundTo } from '../core/ownership.js';
import type { SessionStore } from '../core/session.js';
import { NotFound } from './errors.js';
import { type ModelPrice, type PriceRow, priceFor } from './model-prices.js';
import { AccessPolicy } from './policy.js';
import type { RunEventStore, StoredBatch } from './ports/run-events.js';
import type { RunRecordStore } from './ports/run-records.js';
import { publicRun } from './run-records.js';
import { buildTimeline, type TimelineItem, type Totals } from './timeline-build.js';
import { checkId } from './validation.js';

/** The most stored messages one timeline reads (100 a page): a longer run says `truncated`. */
export const TIMELINE_MAX_BATCHES = 2000;

export interface RunTimelineDeps {
  sessions: Pick<SessionStore, 'load' | 'save'>;
  runs: Pick<RunRecordStore, 'get'>;
  events: RunEventStore;
  /** Absent (a deployment without one): tool timings come from the events alone. */
  journal?: Pick<RunJournalStore, 'load'>;
  prices?: Readonly<Record<string, ModelPrice>>;
}

export interface RunTimeline {
  run: ReturnType<typeof publicRun>;
  startedAt: number;
  endedAt: number;
  items: TimelineItem[];
  totals: Totals;
  /** What the cost figures are: an estimate at this price row, never a bill. */
  pricing: PriceRow & { estimate: true };
  truncated?: true;
}

/**
 * `GET /sessions/{id}/runs/{runId}/timeline`: what one run did, for its owner only (another's
 * run, a cleared session's, a guessed id: `not-found`, before anything of the run is read).
 * Drawn from the run record, the run's stored events and its journal (lib/app/timeline-build.ts).
 */
export async function readTimeline(
  deps: RunTimelineDeps,
  principal: unknown,
  sessionId: string,
  runId: string,
): Promise<RunTimeline> {
  const policy = new AccessPolicy(deps.sessions);
  const who = policy.principal(principal);
  checkId('runId', runId);
  const session = await policy.owned(who, sessionId);
  const record = await deps.runs.get(sessionId, runId);
  if (!record || !boundTo(record, session)) {
    throw new NotFound(`Run "${runId}" of session "${sessionId}"`);
  }
  const [stored, journal] = await Promise.all([
    allBatches(deps.events, sessionId, runId),
    deps.journal?.load(sessionId, runId) ?? Promise.resolve([]),
  ]);
  // Written in another life of the session than the record's: never shown.
  const batches = stored.batches.filter(
    (b) => b.incarnation === undefined || b.incarnation === record.incarnation,
  );
  const pricing = { ...priceFor(record.agent, deps.prices), estimate: true as const };
  const { items, totals } = buildTimeline(batches, journal, pricing, record.createdAt);
  const lastAt = Math.max(record.createdAt, ...items.map((i) => i.endAt));
  const ended = ['completed', 'failed', 'timed-out', 'paused'].includes(record.status);
  return {
    run: publicRun(record),
    startedAt: Math.min(record.createdAt, ...items.map((i) => i.startAt)),
    endedAt: ended ? Math.max(lastAt, record.updatedAt) : lastAt,
    items,
    totals,
    pricing,
    ...(stored.truncated ? { truncated: true as const } : {}),
  };
}

async function allBatches(events: RunEventStore, sessionId: string, runId: string) {
  const batches: StoredBatch[] = [];
  let after = -1;
  for (;;) {
    const page = await events.read(sessionId, runId, { after, limit: 100 });
    batches.push(...page.batches);
    const last = page.batches.at(-1);
    if (!page.more || !last) return { batches, truncated: false };
    if (batches.length >= TIMELINE_MAX_BATCHES) return { batches, truncated: true };
    after = last.seq;
  }
}
