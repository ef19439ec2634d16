import type { Binding } from '../../core/ownership.js';
import type { Delivery } from '../../transport/delivery.js';
import type { EventsMessage } from '../../transport/protocol.js';
import {
  DEFAULT_EVENTS_FLUSH_MS,
  lastSeqOf,
  type RunEventStore,
  SeqTaken,
  type StoredMessage,
} from '../ports/run-events.js';
import type { RunRecord } from '../ports/run-records.js';
import { nextSeqOf } from './run-log.js';
import { WriteBehind } from './write-behind.js';

/**
 * The emission point's hook (write-behind, docs/architecture.md "Stored events"): each message
 * goes out at once and is buffered; the buffer is stored as one item (a seq range) when it is
 * `flushMs` old, at a pause, and always before a message that ends the attempt (the terminal
 * event, `run-retrying`) goes out — a client that saw the end can replay everything. A seq the
 * worker may have sent but never stored (it died) is closed by a void marker on redelivery
 * (`continuingSeq`). One wrapper per attempt (keyed by its binding): every emit shares its buffer.
 */
export function storedFirst(
  delivery: Delivery,
  events: RunEventStore | undefined,
  binding: Binding,
  options: { flushMs?: number | undefined } = {},
): Delivery {
  if (!events) return delivery;
  const known = attempts.get(binding);
  if (known) return known;
  const flushMs = options.flushMs ?? events.flushMs ?? DEFAULT_EVENTS_FLUSH_MS;
  const behind = new WriteBehind(delivery, events, binding, flushMs);
  attempts.set(binding, behind);
  return behind;
}

const attempts = new WeakMap<Binding, WriteBehind>();

/**
 * The seq an attempt starts at. A redelivered attempt of a run that was streaming may follow one
 * that sent seqs past the last stored one (write-behind) and died: those may have reached live
 * clients, so none of them is sent again with other content. The void marker takes the record's
 * reserved seq R (past every block any attempt reserved: none ever sent it) and covers the seqs
 * back to the first unstored one; stored first (its item the range S+1…R, so storage stays
 * contiguous), then sent; the attempt continues at R+1, and its first reservation moves the
 * record past R. With nothing to close it continues right after the last stored message. A first
 * delivery reads nothing.
 */
export async function continuingSeq(
  events: RunEventStore | undefined,
  job: { sessionId: string; runId: string },
  previous: RunRecord | undefined,
  redelivered: boolean,
  recordSeq: number,
  binding?: Binding,
): Promise<{ firstSeq: number; resend?: EventsMessage[] }> {
  const fresh = !redelivered && (previous === undefined || previous.status === 'queued');
  if (!events || fresh) return { firstSeq: recordSeq };
  const { sessionId, runId } = job;
  for (let attempt = 0; ; attempt++) {
    const last = await events.last(sessionId, runId);
    const streaming = previous?.status === 'running' && binding !== undefined;
    if (!last && !streaming) return { firstSeq: recordSeq };
    const stored = last ? lastSeqOf(last) + 1 : 0;
    const ended = previous?.terminalSeq === undefined ? 0 : previous.terminalSeq + 1;
    const firstSeq = Math.max(stored, ended, nextSeqOf(previous?.reply));
    // A stored pause ends the run unless a resume took it on (the record running again): that
    // resume may have sent past it too.
    const over = last?.events.some(
      (e) => FINAL.has(e.type) || (e.type === 'run-paused' && !streaming),
    );
    if (over || previous?.status === 'paused') return { firstSeq };
    const resend = last ? await tail(events, sessionId, runId, lastSeqOf(last)) : [];
    if (!streaming || recordSeq <= firstSeq) return { firstSeq, resend };
    const marker = voidMarker(runId, stored, recordSeq);
    try {
      await events.append({ sessionId, runId, messages: [marker] }, binding);
    } catch (err) {
      // A late write of the attempt that stopped landed first: read again, close after it.
      if (err instanceof SeqTaken && attempt < 3) continue;
      throw err;
    }
    return { firstSeq: recordSeq + 1, resend: [...resend, toMessage(sessionId, runId, marker)] };
  }
}

/**
 * The last stored messages (up to one SendMessageBatch) may never have reached delivery (the
 * terminal's range is stored before it is sent; a marker before it is sent): sent again, same
 * seqs and content, so live clients see no gap (they drop the seqs they have).
 */
async function tail(events: RunEventStore, sessionId: string, runId: string, last: number) {
  const page = await events.read(sessionId, runId, { after: last - RESEND, limit: RESEND });
  return page.batches.map((b) => toMessage(sessionId, runId, b));
}

/**
 * A void marker at `seq` (a seq no attempt sent) closing `from…seq`: the seqs before `seq` were
 * possibly sent by an attempt that stopped before storing them.
 */
export function voidMarker(runId: string, from: number, seq: number): StoredMessage {
  const what = from === seq ? `Seq ${seq} is` : `Seqs ${from}…${seq} are`;
  return {
    seq,
    ...(from < seq ? { from } : {}),
    events: [
      {
        type: 'run-retrying',
        runId,
        code: 'events-void',
        message: `${what} void: an attempt that stopped may have sent some before storing them.`,
      },
    ],
  };
}

export function toMessage(sessionId: string, runId: string, m: StoredMessage): EventsMessage {
  return {
    type: 'events',
    sessionId,
    runId,
    seq: m.seq,
    ...(m.from === undefined ? {} : { from: m.from }),
    events: [...m.events],
  };
}

/** One SendMessageBatch: the most messages one failed send can leave undelivered. */
const RESEND = 10;

const FINAL = new Set(['run-finished', 'run-error']);
