import { createHash } from 'node:crypto';
import type { EventsQueueMessage, RunJob } from './protocol.js';

/** MessageGroupId and MessageDeduplicationId of a message on a FIFO queue. */
export interface FifoKeys {
  groupId: string;
  deduplicationId: string;
}

/** SQS allows at most 128 characters in either key. */
const MAX_KEY = 128;

/**
 * One group per session, so its turns run in order. The dedup id is a digest of (principal,
 * session, requestId): a client's retry is dropped, another user's equal requestId never is
 * (the queues also scope deduplication to the group).
 */
export function runJobFifoKeys(job: RunJob): FifoKeys {
  return {
    groupId: job.sessionId,
    deduplicationId: digestOf([job.principal, job.sessionId, job.requestId]),
  };
}

/** SHA-256 hex of the parts as a JSON array: no separator can make two lists collide. */
export function digestOf(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
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
