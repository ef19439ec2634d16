import { AgentKernelError } from '../../core/errors.js';
import type { JsonValue } from '../../core/session.js';
import type { JobLogger, JobMetrics } from '../ports/jobs.js';
import type { RunRecord, RunRecordStore, RunStatus } from '../ports/run-records.js';
import { afterTurn } from './after-turn.js';
import { retrying } from './retry.js';

/** Seqs reserved per run-record write: one write per this many events messages. */
export const SEQ_BLOCK = 32;

/** Another attempt finished the run meanwhile: this one must stop and send nothing more. */
export class RunSuperseded extends AgentKernelError {
  constructor(runId: string, status: string | undefined) {
    super('run-superseded', `Run "${runId}" is ${status ?? 'gone'}: another attempt ended it.`);
  }
}

type Base = Pick<
  RunRecord,
  | 'schemaVersion'
  | 'runId'
  | 'sessionId'
  | 'owner'
  | 'incarnation'
  | 'agent'
  | 'input'
  | 'createdAt'
>;

/**
 * The run record as one attempt of a job moves it. Status changes are conditional writes
 * (`RunRecordStore.transition`), so a late or losing attempt never overwrites a winner. Before an
 * events message with seq `s` goes out, the record's `nextSeq` is above `s` (reserved a block
 * at a time), so a retry after a crash starts past every seq this attempt may have sent: clients
 * never see one (runId, seq) with two contents. An attempt that ends cleanly stores its exact
 * `nextSeq`, so a resume continues without a gap.
 */
export class RunLog {
  readonly base: Base;
  readonly previous: RunRecord | undefined;
  readonly firstSeq: number;
  #reserved: number;
  #running = false;
  /** A reservation made ahead of the first send (`reserveAhead`), which sends wait for. */
  #ahead: Promise<void> | undefined;

  constructor(
    private readonly runs: RunRecordStore,
    base: Base,
    previous: RunRecord | undefined,
    private readonly extra: { turnsBefore?: number | undefined },
    private readonly context: {
      logger?: JobLogger | undefined;
      metrics: JobMetrics;
      until?: number | undefined;
    },
  ) {
    this.base = base;
    this.previous = previous;
    this.firstSeq = Math.max(previous?.nextSeq ?? 0, nextSeqOf(previous?.reply));
    this.#reserved = this.firstSeq;
  }

  /** Seqs below this may have been sent (by this attempt or an earlier one). */
  get reservedSeq(): number {
    return this.#reserved;
  }

  /** Whether this attempt moved the record to `running` (it sent something). */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Reserves the first block now, while the model is still thinking, so the first send does not
   * wait on the record write. Call it once the record's binding is known (the session loaded).
   * Never throws: a failed reservation is made again (and thrown) by the first `reserve`.
   */
  reserveAhead(): void {
    if (this.#ahead || this.#running) return;
    this.#ahead = this.reserve(this.firstSeq).catch(() => undefined);
  }

  /** Called before sending the message with `seq`: moves to running / reserves more seqs. */
  async reserve(seq: number): Promise<void> {
    // One record write at a time: a send waits for the reservation made ahead of it.
    if (this.#ahead) await this.#ahead;
    if (seq < this.#reserved && this.#running) return;
    const nextSeq = Math.max(seq + 1, this.#reserved) + SEQ_BLOCK;
    const result = await retrying(
      () => this.runs.transition(this.#record('running', { nextSeq })),
      this.#retry(),
    );
    if (!result.applied) throw new RunSuperseded(this.base.runId, result.current?.status);
    this.#running = true;
    this.#reserved = nextSeq;
  }

  /** The attempt's last write; retried in place, never thrown (the outcome is already known). */
  async end(
    status: RunStatus,
    nextSeq: number,
    patch: Pick<RunRecord, 'reply' | 'error' | 'terminalSeq'> = {},
  ): Promise<void> {
    const record = this.#record(status, { nextSeq: Math.max(nextSeq, this.firstSeq), ...patch });
    await afterTurn(
      'run-record',
      async () => {
        const result = await this.runs.transition(record);
        if (!result.applied) {
          this.context.logger?.info('run record kept', {
            runId: this.base.runId,
            wanted: status,
            current: result.current?.status,
          });
        }
      },
      { metrics: this.context.metrics, runId: this.base.runId, until: this.context.until },
    );
  }

  #record(status: RunStatus, patch: Partial<RunRecord>): RunRecord {
    const turnsBefore = this.previous?.turnsBefore ?? this.extra.turnsBefore;
    return {
      ...this.base,
      status,
      ...(turnsBefore === undefined ? {} : { turnsBefore }),
      ...patch,
      updatedAt: Date.now(),
    };
  }

  #retry() {
    return this.context.until === undefined
      ? { attempts: 3 }
      : { attempts: 3, until: this.context.until };
  }
}

/** The seq a paused run's reply kept (records written before `nextSeq` existed). */
export function nextSeqOf(reply: unknown): number {
  const seq = (reply as { nextSeq?: unknown } | undefined)?.nextSeq;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/** Replies are plain JSON by construction (the runtime validated them); the store checks again. */
export function asJson(value: unknown): JsonValue {
  return value as JsonValue;
}
