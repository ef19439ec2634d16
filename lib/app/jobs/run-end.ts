import { AgentKernelError } from '../../core/errors.js';
import { type Binding, boundTo } from '../../core/ownership.js';
import type { Reply } from '../../core/requests.js';
import { type RunRecord, terminalEventOf } from '../ports/run-records.js';

/**
 * Whether a record shows its run's end: a terminal status with the seq of its terminal event
 * (`terminalSeq`, written by the attempt that ended it). A `timed-out` attempt that will be
 * retried has none; a pause counts when `pending` says its paused run waits again.
 */
export function hasEnded(record: RunRecord | undefined, pending?: boolean): record is RunRecord {
  if (!record || record.terminalSeq === undefined || !terminalEventOf(record)) return false;
  return record.status !== 'paused' || pending !== false;
}

/**
 * Waits for another attempt (a refused resume's winner) to end the run, reading its record with
 * backoff until `until`: the record that shows the end, or undefined at the deadline — or at once
 * when `orphaned` says no attempt can end it for this requester any more (the session was
 * cleared or began a new life: the winner was refused too and wrote nothing). A loser answers its
 * requester with the winner's outcome instead of a refusal or nothing.
 */
export async function awaitRunEnd(
  read: () => Promise<RunRecord | undefined>,
  options: {
    until: number;
    pending?: () => Promise<boolean>;
    orphaned?: (record: RunRecord | undefined) => Promise<boolean>;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<RunRecord | undefined> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    const record = await read().catch(() => undefined);
    const pending =
      record?.status === 'paused' && options.pending ? await options.pending() : undefined;
    if (hasEnded(record, pending)) return record;
    if (options.orphaned && (await options.orphaned(record).catch(() => false))) return undefined;
    if (now() + pause > options.until) return undefined;
    await sleep(pause);
  }
}

/**
 * Whether a run's record is past reach of its session's current life: the session is gone, or
 * lives again (another incarnation or owner) than the one the record was written for, or neither
 * the record nor its paused run exists. A run in that state never shows an end to its requester.
 */
export function orphanedBy(
  session: () => Promise<Binding | undefined>,
  pausedRunExists: () => Promise<boolean>,
): (record: RunRecord | undefined) => Promise<boolean> {
  return async (record) => {
    if (!record) return !(await pausedRunExists());
    return !boundTo(record, await session());
  };
}

/** The run's outcome as a sync requester gets it: the reply, or the run's error thrown. */
export function replyOf(record: RunRecord): Reply {
  if (record.status === 'completed' || record.status === 'paused') {
    const { nextSeq: _seq, ...reply } = record.reply as Reply & { nextSeq?: number };
    return reply as Reply;
  }
  const error = record.error ?? { code: 'internal-error', message: 'The run failed.' };
  throw new AgentKernelError(error.code, error.message);
}
