import type { Binding } from '../../core/ownership.js';
import type { Delivery } from '../../transport/delivery.js';
import type { EventsMessage } from '../../transport/protocol.js';
import type { RunEventStore } from '../ports/run-events.js';
import type { RunRecord } from '../ports/run-records.js';
import { nextSeqOf } from './run-log.js';

/**
 * The emission point's hook: each message is stored (the run's events window) before it is
 * handed to delivery, so whatever a client was sent can be read again from storage, and a seq is
 * stored once (first writer wins: another attempt's content for it is refused, never sent).
 */
export function storedFirst(
  delivery: Delivery,
  events: RunEventStore | undefined,
  binding: Binding,
): Delivery {
  if (!events) return delivery;
  // `binding` is read at each send: a first delivery learns the session's life as the turn loads it.
  const store = (message: EventsMessage) =>
    events.append(message, { owner: binding.owner, incarnation: binding.incarnation });
  const many = delivery.deliverMany?.bind(delivery);
  return {
    mode: delivery.mode,
    async deliver(message: EventsMessage) {
      await store(message);
      await delivery.deliver(message);
    },
    ...(many
      ? {
          async deliverMany(messages: readonly EventsMessage[]) {
            for (const message of messages) await store(message);
            await many(messages);
          },
        }
      : {}),
  };
}

/**
 * The seq an attempt starts at. With stored events it continues right after the last stored
 * message (every message sent was stored first, so nothing above it reached a client): a worker
 * killed mid-stream and redelivered leaves no gap. The record's own rule (past every reserved
 * seq) stands when nothing is stored, and a first delivery reads nothing.
 */
export async function continuingSeq(
  events: RunEventStore | undefined,
  job: { sessionId: string; runId: string },
  previous: RunRecord | undefined,
  redelivered: boolean,
  recordSeq: number,
): Promise<{ firstSeq: number; resend?: EventsMessage[] }> {
  const fresh = !redelivered && (previous === undefined || previous.status === 'queued');
  if (!events || fresh) return { firstSeq: recordSeq };
  const last = await events.last(job.sessionId, job.runId);
  if (!last) return { firstSeq: recordSeq };
  const ended = previous?.terminalSeq === undefined ? 0 : previous.terminalSeq + 1;
  const firstSeq = Math.max(last.seq + 1, ended, nextSeqOf(previous?.reply));
  // The last stored messages (up to one SendMessageBatch) may never have reached delivery (the
  // send failed, or the worker died between the two): sent again, same seqs and content, so live
  // clients see no gap (they drop the seqs they have).
  const terminal = last.events.some((e) => TERMINAL.has(e.type));
  if (terminal || previous?.status === 'paused') return { firstSeq };
  const { sessionId, runId } = job;
  const tail = await events.read(sessionId, runId, { after: last.seq - RESEND, limit: RESEND });
  const resend: EventsMessage[] = tail.batches.map((b) => ({
    type: 'events',
    sessionId,
    runId,
    seq: b.seq,
    events: [...b.events],
  }));
  return { firstSeq, resend };
}

/** One SendMessageBatch: the most messages one failed send can leave undelivered. */
const RESEND = 10;

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);
