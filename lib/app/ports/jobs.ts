import type { StreamEvent } from '../../core/events.js';
import type { Runtime } from '../../core/runtime.js';
import type { Delivery } from '../../transport/delivery.js';
import type { TurnJob } from '../../transport/protocol.js';
import type { RunEventStore } from './run-events.js';
import type { RunRecordStore } from './run-records.js';

/**
 * What the job runner (lib/app/jobs) needs from where it runs: Lambda (lib/aws/handlers/worker.ts), the
 * local stack (the same handler), a test. No AWS type crosses it.
 */

/** Counters of the job pipeline (CloudWatch EMF on AWS). */
export type PipelineMetric =
  | 'PostTurnStepFailures'
  | 'ConnectionsDropped'
  | 'JobRetries'
  | 'RunTimeouts'
  | 'ResumesRefused'
  | 'TurnsRecovered'
  | 'ClearsRefused';

export interface JobMetrics {
  count(name: PipelineMetric, properties?: Record<string, unknown>): void;
}

/** The structured log line a job writes (Powertools' Logger fits). */
export interface JobLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
}

/** The runtime's part a job uses. */
export type JobRuntime = Pick<
  Runtime,
  'stream' | 'resumeStream' | 'sessions' | 'pausedRuns' | 'clearSession'
>;

export interface JobPorts {
  runtime: JobRuntime;
  runs: RunRecordStore;
  /** Where one job's events go: its requester and the session owner's subscribers. */
  delivery(job: TurnJob): Delivery;
  /** Tells whoever decides (back office, chat bot) that the run waits. */
  announcePause(
    job: TurnJob,
    agent: string,
    outcome: Extract<StreamEvent, { type: 'run-paused' }>,
  ): Promise<void>;
  metrics: JobMetrics;
  logger?: JobLogger | undefined;
  /** Stored events (resumable streams): each message is kept here before it is delivered. */
  events?: RunEventStore | undefined;
  /** The event batcher's longest wait before it sends (docs/benchmarks.md). */
  batchMaxDelayMs?: number | undefined;
  /** Its shortest wait (the adaptive window's floor). */
  batchMinDelayMs?: number | undefined;
}
