import { AgentKernelError } from '../core/errors.js';
import { boundTo } from '../core/ownership.js';
import type { SessionStore } from '../core/session.js';
import type { EventsMessage } from '../transport/protocol.js';
import { NotFound } from './errors.js';
import { hasEnded } from './jobs/run-end.js';
import { AccessPolicy } from './policy.js';
import type { RunEventStore, StoredBatch } from './ports/run-events.js';
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
    return this.#read(record, after, limit, true);
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
   * the live delivery (subscribes the connection) and what was stored meanwhile follows. Every
   * message is stored before it is posted, so one stored after the last read is posted live:
   * none is missed. One stored between `live()` and the last read comes both ways, and a live one
   * may arrive before it — the client orders by seq and drops a seq it has
   * (lib/transport/seq-order.ts). Bad input is refused before anything is subscribed.
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
      if (!live) await options.live();
      // Ended: nothing comes live; else once more, for what was stored before `live()`.
      if (page.ended || live) return;
      live = true;
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

  async #read(
    record: RunRecord,
    after: number,
    limit: number,
    check: boolean,
  ): Promise<EventsPage> {
    const { sessionId, runId } = record;
    const stored = await this.#deps.events.read(sessionId, runId, { after, limit });
    // Written in another life than the record's: never shown (the record decides the life).
    const batches = stored.batches.filter((b) => sameLife(b, record));
    const messages: EventsMessage[] = [];
    for (const batch of batches) {
      messages.push({
        type: 'events',
        sessionId,
        runId,
        seq: batch.seq,
        events: [...batch.events],
      });
      if (batch.events.some((e) => TERMINAL.has(e.type))) {
        return { sessionId, runId, messages, after: batch.seq, more: false, ended: true };
      }
    }
    const last = messages.at(-1)?.seq ?? after;
    if (!stored.more) {
      // An ended run whose terminal message was not stored here (a sync HTTP run, a part that
      // streamed nowhere): the record's terminal event at its terminal seq, as jobs send it.
      const terminal = endOf(record, last);
      if (terminal) {
        messages.push(terminal);
        return { sessionId, runId, messages, after: terminal.seq, more: false, ended: true };
      }
      if (check && messages.length === 0 && after >= 0) {
        const ended = await this.#caughtUp(record, after);
        if (ended) return { sessionId, runId, messages, after, more: false, ended: true };
      }
    }
    return { sessionId, runId, messages, after: last, more: stored.more, ended: false };
  }

  /**
   * Nothing stored after `after`: ended when the run's terminal message is at or below it (the
   * client has it); `after` above every seq the run has sent is a client error, not a wait.
   */
  async #caughtUp(record: RunRecord, after: number): Promise<boolean> {
    const last = await this.#highest(record, after);
    if (last?.events.some((e) => TERMINAL.has(e.type)) && last.seq <= after) return true;
    return hasEnded(record) && (record.terminalSeq ?? -1) === after;
  }

  /** The run's last stored message; `after` above every seq the run has sent is `invalid-seq`. */
  async #highest(record: RunRecord, after: number, name = 'after') {
    const last = await this.#deps.events.last(record.sessionId, record.runId);
    const highest = Math.max(last?.seq ?? -1, record.terminalSeq ?? -1);
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
