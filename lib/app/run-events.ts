import { AgentKernelError } from '../core/errors.js';
import { boundTo } from '../core/ownership.js';
import type { SessionStore } from '../core/session.js';
import type { EventsMessage } from '../transport/protocol.js';
import { NotFound } from './errors.js';
import { hasEnded } from './jobs/run-end.js';
import { toMessage } from './jobs/stored-events.js';
import { AccessPolicy } from './policy.js';
import {
  DEFAULT_EVENTS_FLUSH_MS,
  lastSeqOf,
  type RunEventStore,
  type StoredBatch,
} from './ports/run-events.js';
import { type RunRecord, type RunRecordStore, terminalEventOf } from './ports/run-records.js';
import { checkId } from './validation.js';

/**
 * Reconnect use cases (resumable streams): a run's stored messages after a seq, for the owner of
 * the session life the run ran in only, then (`follow`) the live ones as they are stored, up to
 * the run's terminal event. Every front calls these: SSE (`Last-Event-ID`), WebSocket `subscribe`
 * with `afterSeq`, `GET …/runs/{runId}/events?after=`.
 */

export const PAGE_MAX = 100;

export class InvalidSeq extends AgentKernelError {
  constructor(detail: string) {
    super('invalid-seq', detail);
  }
}

export class InvalidLimit extends AgentKernelError {
  constructor() {
    super('invalid-limit', `The page size (limit) must be a whole number from 1 to ${PAGE_MAX}.`);
  }
}

export interface EventsPage {
  readonly sessionId: string;
  readonly runId: string;
  readonly messages: readonly EventsMessage[];
  /** The seq to ask after next (the last message's, or `after` when none). */
  readonly after: number;
  /** More stored messages follow this page. */
  readonly more: boolean;
  /** The page holds the run's terminal event: nothing follows it (until a resume). */
  readonly ended: boolean;
}

/** A page as read here, with when each stored message's range was stored. */
interface ReadPage extends EventsPage {
  readonly batches: readonly { readonly at?: number | undefined }[];
}

export interface RunEventsDeps {
  sessions: Pick<SessionStore, 'load' | 'save'>;
  runs: Pick<RunRecordStore, 'get'>;
  events: RunEventStore;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/** A client's seq (`"7"`, `7`; absent: from the start, −1): a whole number, else `invalid-seq`. */
export function parseSeq(value: unknown, name = 'after'): number {
  if (value === undefined || value === null || value === '') return -1;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InvalidSeq(
      `\`${name}\` must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`,
    );
  }
  return Number(text);
}

export function parseLimit(value: unknown): number {
  if (value === undefined || value === null || value === '') return PAGE_MAX;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,3}$/.test(text)) throw new InvalidLimit();
  const limit = Number(text);
  if (limit < 1 || limit > PAGE_MAX) throw new InvalidLimit();
  return limit;
}

export class RunEvents {
  readonly #deps: RunEventsDeps;
  readonly #policy: AccessPolicy;

  constructor(deps: RunEventsDeps) {
    this.#deps = deps;
    this.#policy = new AccessPolicy(deps.sessions);
  }

  /** One page of stored messages after `after` (another's run, a guessed id: `not-found`). */
  async page(
    principal: unknown,
    sessionId: string,
    runId: string,
    options: { after?: unknown; limit?: unknown } = {},
  ): Promise<EventsPage> {
    const after = parseSeq(options.after);
    const limit = parseLimit(options.limit);
    const record = await this.#owned(principal, sessionId, runId);
    const { batches: _, ...page } = await this.#read(record, after, limit, true);
    return page;
  }

  /**
   * The stored messages after `after`, then each new one as it is stored (polled, 100 ms growing
   * to 1 s while nothing comes), each once and in seq order, ending with the terminal event's
   * message; stops early (the client reconnects from its last seq) at `until` or on `signal`.
   */
  async *follow(
    principal: unknown,
    sessionId: string,
    runId: string,
    options: { after?: unknown; until?: number; signal?: AbortSignal },
  ): AsyncGenerator<EventsMessage> {
    let after = parseSeq(options.after);
    let record = await this.#owned(principal, sessionId, runId);
    const now = this.#deps.now ?? Date.now;
    const sleep = this.#deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    let pause = 100;
    for (let first = true; ; first = false) {
      const page = await this.#read(record, after, PAGE_MAX, first);
      for (const message of page.messages) yield message;
      if (page.ended) return;
      after = page.after;
      if (page.more) continue;
      if (page.messages.length > 0) pause = 100;
      if (options.signal?.aborted || now() + pause > (options.until ?? Number.POSITIVE_INFINITY)) {
        return;
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 1000);
      record = (await this.#deps.runs.get(sessionId, runId)) ?? record;
    }
  }

  /**
   * A reconnect on a new connection (WebSocket `subscribe` with `afterSeq`): once the run is the
   * caller's and `after` a seq it sent, the messages stored after `after`; then `live()` starts
   * the live delivery (subscribes the connection) and what is stored meanwhile follows. Messages
   * are stored behind delivery (lib/app/jobs/write-behind.ts): one sent before `live()` but not
   * yet stored is in the worker's buffer, stored by its next flush. So after `live()` the store
   * is watched until a flush that started after it landed — the second new range, as flushes run
   * one at a time — or the run's end, bounded by two flush intervals and a second (a worker with
   * nothing buffered flushes nothing). A message then comes both ways, or a live one before an
   * older stored one: the client orders by seq and drops a seq it has
   * (lib/transport/seq-order.ts); a client still missing a seq asks again after it. Bad input
   * is refused before anything is subscribed.
   */
  async *replay(
    principal: unknown,
    sessionId: string,
    runId: string,
    options: { after?: unknown; live: () => Promise<void> },
  ): AsyncGenerator<EventsMessage> {
    let after = parseSeq(options.after, 'afterSeq');
    const record = await this.#owned(principal, sessionId, runId);
    // The highest seq only grows: checked now, `after` stays valid once subscribed.
    if (after >= 0) await this.#highest(record, after, 'afterSeq');
    let live = false;
    for (;;) {
      const page = await this.#read(record, after, PAGE_MAX, false);
      for (const message of page.messages) yield message;
      after = page.after;
      if (page.more) continue;
      if (page.ended || live) return;
      await options.live();
      live = true;
      after = yield* this.#catchUp(record, after);
    }
  }

  /** After `live()`: stored messages until a flush begun after it landed (see `replay`). */
  async *#catchUp(record: RunRecord, from: number): AsyncGenerator<EventsMessage, number> {
    const now = this.#deps.now ?? Date.now;
    const sleep = this.#deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    const flushMs = this.#deps.events.flushMs ?? DEFAULT_EVENTS_FLUSH_MS;
    const until = now() + 2 * flushMs + 1000;
    const ranges = new Set<number | undefined>();
    let after = from;
    for (let pause = 50; ; pause = Math.min(pause * 2, 400)) {
      const page = await this.#read(record, after, PAGE_MAX, false);
      for (const message of page.messages) yield message;
      for (const b of page.batches) ranges.add(b.at);
      after = page.after;
      if (page.ended || ranges.size >= 2) return after;
      if (page.more) continue;
      if (now() >= until) return after;
      await sleep(pause);
    }
  }

  /** The run record when the run is the caller's, in the session's current life; else not-found. */
  async #owned(principal: unknown, sessionId: string, runId: string): Promise<RunRecord> {
    const who = this.#policy.principal(principal);
    checkId('runId', runId);
    const session = await this.#policy.owned(who, sessionId);
    const record = await this.#deps.runs.get(sessionId, runId);
    if (!record || !boundTo(record, session)) {
      throw new NotFound(`Run "${runId}" of session "${sessionId}"`);
    }
    return record;
  }

  async #read(record: RunRecord, after: number, limit: number, check: boolean): Promise<ReadPage> {
    const { sessionId, runId } = record;
    const stored = await this.#deps.events.read(sessionId, runId, { after, limit });
    // Written in another life than the record's: never shown (the record decides the life).
    const batches = stored.batches.filter((b) => sameLife(b, record));
    const page = (p: EventsPage): ReadPage => ({ ...p, batches });
    const messages: EventsMessage[] = [];
    for (const batch of batches) {
      messages.push(toMessage(sessionId, runId, batch));
      if (batch.events.some((e) => TERMINAL.has(e.type))) {
        return page({ sessionId, runId, messages, after: batch.seq, more: false, ended: true });
      }
    }
    const tip = messages.at(-1);
    const last = tip ? lastSeqOf(tip) : after;
    if (!stored.more) {
      // An ended run whose terminal message was not stored here (a sync HTTP run, a part that
      // streamed nowhere): the record's terminal event at its terminal seq, as jobs send it.
      const terminal = endOf(record, last);
      if (terminal) {
        messages.push(terminal);
        return page({ sessionId, runId, messages, after: terminal.seq, more: false, ended: true });
      }
      if (check && messages.length === 0 && after >= 0) {
        const ended = await this.#caughtUp(record, after);
        if (ended) return page({ sessionId, runId, messages, after, more: false, ended: true });
      }
    }
    return page({ sessionId, runId, messages, after: last, more: stored.more, ended: false });
  }

  /**
   * Nothing stored after `after`: ended when the run's terminal message is at or below it (the
   * client has it); `after` above every seq the run has sent is a client error, not a wait.
   */
  async #caughtUp(record: RunRecord, after: number): Promise<boolean> {
    const last = await this.#highest(record, after);
    if (last?.events.some((e) => TERMINAL.has(e.type)) && lastSeqOf(last) <= after) return true;
    return hasEnded(record) && (record.terminalSeq ?? -1) === after;
  }

  /**
   * The run's last stored message; `after` above every seq the run may have sent (stored, or
   * reserved by a running attempt: stored a flush later) is `invalid-seq`.
   */
  async #highest(record: RunRecord, after: number, name = 'after') {
    const last = await this.#deps.events.last(record.sessionId, record.runId);
    // Running: seqs it reserved (a worker's) may be sent and not yet stored; a run that keeps
    // no reservation (an SSE run) may have sent any seq its next flush stores.
    const going = record.status === 'running' || record.status === 'queued';
    const reserved = going ? (record.nextSeq ?? Number.MAX_SAFE_INTEGER) - 1 : -1;
    const highest = Math.max(last ? lastSeqOf(last) : -1, record.terminalSeq ?? -1, reserved);
    if (after > highest) {
      throw new InvalidSeq(
        highest < 0
          ? `Run "${record.runId}" has sent nothing yet: reconnect without a seq.`
          : `Run "${record.runId}" has sent seqs up to ${highest}; \`${name}\` ${after} is above it.`,
      );
    }
    return last;
  }
}

function sameLife(batch: StoredBatch, record: RunRecord): boolean {
  return batch.incarnation === undefined || batch.incarnation === record.incarnation;
}

function endOf(record: RunRecord, last: number): EventsMessage | undefined {
  if (!hasEnded(record) || record.terminalSeq === undefined || record.terminalSeq <= last) {
    return undefined;
  }
  const event = terminalEventOf(record);
  if (!event) return undefined;
  const { sessionId, runId, terminalSeq: seq } = record;
  return {
    type: 'events',
    sessionId,
    runId,
    seq,
    events: [event as EventsMessage['events'][number]],
  };
}
