import { createHash } from 'node:crypto';
import type { EventsQueueMessage, RunJob } from './protocol.js';

/** MessageGroupId and MessageDeduplicationId of a message on a FIFO queue. */
export interface FifoKeys {
  groupId: string;
  deduplicationId: string;
}

/** SQS allows at most 128 characters in either key. */
const MAX_KEY = 128;

/** One group per session, so its turns run in order; the client's requestId dedups retries. */
export function runJobFifoKeys(job: RunJob): FifoKeys {
  return { groupId: job.sessionId, deduplicationId: job.requestId };
}

/** A batch is identified by its run and seq: a re-sent batch is dropped by SQS. */
export function eventsFifoKeys(entry: EventsQueueMessage): FifoKeys {
  const { sessionId, runId, seq } = entry.message;
  const id = `${runId}.${seq}`;
  return {
    groupId: sessionId,
    deduplicationId: id.length <= MAX_KEY ? id : createHash('sha256').update(id).digest('hex'),
  };
}
