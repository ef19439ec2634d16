import { createHash } from 'node:crypto';
import type { RunJob } from '../../transport/protocol.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { JobMetrics } from '../ports/jobs.js';
import { afterTurn } from './after-turn.js';
import { retrying } from './retry.js';

/** A job's claim: run it (then complete or give back), or it already ran / runs elsewhere. */
export type JobClaim =
  | {
      readonly outcome: 'claimed';
      /** The outcome is known: completed, never released (a release would run it again). */
      complete(status: string, until?: number): Promise<void>;
      /** The turn was not stored: released for the retry (one left behind lapses). */
      giveBack(): Promise<void>;
    }
  | { readonly outcome: 'completed' }
  | { readonly outcome: 'in-progress' };

/**
 * Claims `job:<sessionId>:<requestId>` so a job runs once per requestId however often the queue
 * delivers it (requestIds are chosen by clients: scoped by session so two clients' never
 * collide). The claim outlives the attempt (`inProgressMs`), so no redelivery runs the job while
 * it still runs.
 */
export async function claimJob(
  store: IdempotencyStore,
  job: RunJob,
  options: { inProgressMs: number; metrics: JobMetrics },
): Promise<JobClaim> {
  const key = `job:${job.sessionId}:${job.requestId}`;
  const claim = await store.claim(key, {
    fingerprint: fingerprintOf(job),
    inProgressMs: options.inProgressMs,
  });
  if (claim.outcome !== 'claimed') return claim;
  const { token } = claim;
  return {
    outcome: 'claimed',
    complete: async (status, until) => {
      await afterTurn('idempotency-complete', () => store.complete(key, token, { status }), {
        metrics: options.metrics,
        runId: job.runId,
        until,
      });
    },
    giveBack: () =>
      retrying(() => store.release(key, token), { attempts: 3 }).catch(() => undefined),
  };
}

/**
 * What the request means — who, which session and run, what to do — and not where it came from
 * (`connectionId`, `enqueuedAt`): a reconnected client's retry is the same request.
 */
export function fingerprintOf(job: RunJob): string {
  const { enqueuedAt: _at, connectionId: _from, ...meaning } = job;
  return createHash('sha256').update(JSON.stringify(meaning)).digest('hex');
}
