import type { StreamEvent } from '../../core/events.js';
import type { TurnJob } from '../../transport/protocol.js';
import type { UsageTally } from '../fair-use.js';
import type { JobLogger, JobPorts } from '../ports/jobs.js';

// What one attempt of a run or resume job works with (run-job.ts, run-recovery.ts).

export type Outcome = Extract<StreamEvent, { type: 'run-finished' | 'run-paused' | 'run-error' }>;

/** How an attempt ended: done (the job is complete), or to be retried soon. */
export type JobResult =
  | { readonly done: true; readonly status: string }
  | { readonly done: false; readonly reason: string };

export interface JobContext {
  /** Where the job runs: the runtime, the run records, delivery, announcements, metrics. */
  readonly ports: JobPorts;
  readonly job: TurnJob;
  readonly logger?: JobLogger | undefined;
  /** Aborted a safe margin before the function's deadline (reason: RunTimeout). */
  readonly signal: AbortSignal;
  /** Epoch ms after which post-turn steps stop retrying. */
  readonly until: number;
  /** This is the message's last receive: a retryable failure is reported, not retried. */
  readonly lastAttempt: boolean;
  /** The message was received before: an earlier attempt may have stored the turn and died. */
  readonly redelivered: boolean;
  /** About when a retried job comes back (announced in `run-retrying`). */
  readonly retryInSeconds?: number;
  /** Fair use: the attempt's model tokens, from its events (lib/app/fair-use.ts). */
  readonly usage?: UsageTally;
}
