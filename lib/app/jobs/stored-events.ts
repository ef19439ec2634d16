import type { Binding } from '../../core/ownership.js';
import { type Delivery, emitBatches } from '../../transport/delivery.js';
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
  return {
    mode: delivery.mode,
    async deliver(message: EventsMessage) {
      // `binding` is read now: a first delivery learns the session's life as the turn loads it.
      await events.append(message, { owner: binding.owner, incarnation: binding.incarnation });
      await delivery.deliver(message);
    },
    // Several ready batches: all stored, in seq order, then handed over in one go.
    async deliverMany(messages: readonly EventsMessage[]) {
      const owner = { owner: binding.owner, incarnation: binding.incarnation };
      for (const message of messages) await events.append(message, owner);
      await emitBatches(delivery, messages);
    },
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
): Promise<{ firstSeq: number; resend?: EventsMessage }> {
  const fresh = !redelivered && (previous === undefined || previous.status === 'queued');
  if (!events || fresh) return { firstSeq: recordSeq };
  const last = await events.last(job.sessionId, job.runId);
  if (!last) return { firstSeq: recordSeq };
  const ended = previous?.terminalSeq === undefined ? 0 : previous.terminalSeq + 1;
  const firstSeq = Math.max(last.seq + 1, ended, nextSeqOf(previous?.reply));
  // The last stored message may never have reached delivery (its send failed, or the worker
  // died between the two): sent again, same seq and content, so live clients see no gap.
  const terminal = last.events.some((e) => TERMINAL.has(e.type));
  if (terminal || previous?.status === 'paused') return { firstSeq };
  const { sessionId, runId } = job;
  return {
    firstSeq,
    resend: { type: 'events', sessionId, runId, seq: last.seq, events: [...last.events] },
  };
}

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);
