import type { JsonValue, SessionData } from '../../core/session.js';
import type { TurnJob } from '../../transport/protocol.js';
import type { RunRecord } from '../ports/run-records.js';

// What an earlier attempt of a job left behind, read from its run record and the session.

/** A run job's record past running, or a completed resume: an earlier delivery finished it. */
export function finished(record: RunRecord, job: TurnJob): boolean {
  if (record.status === 'completed') return true;
  return job.kind === 'run' && (record.status === 'paused' || record.status === 'failed');
}

/**
 * How far an earlier attempt got before it died unrecorded. The session says it without the run
 * record (an attempt may die after the save and before its first events message moved the
 * record to running): a run's reply saved as `lastReply`, or its pause marked on the session. A
 * resume's session no longer marks it paused. Older records: more turns than when it started.
 */
export function storedEarlier(
  job: TurnJob,
  previous: RunRecord | undefined,
  session: SessionData | undefined,
): 'completed' | 'paused' | undefined {
  if (!session || (previous && previous.status !== 'running' && previous.status !== 'queued')) {
    return undefined;
  }
  if (job.kind === 'run') {
    if (session.lastReply?.runId === job.runId) return 'completed';
    if (session.paused?.some((p) => p.runId === job.runId)) return 'paused';
    const { turnsBefore } = previous ?? {};
    return turnsBefore !== undefined && session.turns > turnsBefore ? 'completed' : undefined;
  }
  if (previous?.status !== 'running') return undefined;
  return session.paused?.some((p) => p.runId === job.runId) ? undefined : 'completed';
}

/** The reply the session saved with the run's turn (`lastReply`), else `text` alone. */
export function storedReply(
  session: SessionData | undefined,
  runId: string,
  text: string,
): { text: string; output?: JsonValue } {
  const last = session?.lastReply;
  if (last?.runId !== runId) return { text };
  return { text: last.text, ...(last.output === undefined ? {} : { output: last.output }) };
}
