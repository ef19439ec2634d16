import { type PausedRun, PausedRunSchema } from '../../core/paused-run.js';
import {
  InvalidRecord,
  PausedRunNotFound,
  type PausedRunStore,
  RunAlreadyResumed,
} from '../../core/stores.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

/** Paused runs in process memory; each run expires at its own `expiresAt`. */
export class InMemoryPausedRunStore implements PausedRunStore {
  readonly #runs = new Map<string, string>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async put(run: PausedRun): Promise<void> {
    const parsed = PausedRunSchema.safeParse(run);
    if (!parsed.success) {
      throw new InvalidRecord('paused run', parsed.error.issues[0]?.message ?? 'invalid');
    }
    this.#runs.set(key(run.sessionId, run.runId), JSON.stringify(parsed.data));
  }

  async get(sessionId: string, runId: string): Promise<PausedRun | undefined> {
    return this.#read(sessionId, runId);
  }

  async list(sessionId: string): Promise<PausedRun[]> {
    const runs: PausedRun[] = [];
    for (const [k, json] of this.#runs) {
      if (!k.startsWith(`${sessionId}\u0000`)) continue;
      const run = JSON.parse(json) as PausedRun;
      if (!this.#clock.expired(run.expiresAt)) runs.push(run);
    }
    return runs.sort((a, b) => a.createdAt - b.createdAt);
  }

  async claim(sessionId: string, runId: string): Promise<PausedRun> {
    // Read and write with no await between: the check-and-set is atomic in one process.
    const run = this.#read(sessionId, runId);
    if (!run) throw new PausedRunNotFound(sessionId, runId);
    if (run.status !== 'pending') throw new RunAlreadyResumed(sessionId, runId);
    const claimed: PausedRun = { ...run, status: 'resuming' };
    this.#runs.set(key(sessionId, runId), JSON.stringify(claimed));
    return claimed;
  }

  async release(sessionId: string, runId: string): Promise<void> {
    const run = this.#read(sessionId, runId);
    if (run?.status !== 'resuming') return;
    this.#runs.set(key(sessionId, runId), JSON.stringify({ ...run, status: 'pending' }));
  }

  async delete(sessionId: string, runId: string): Promise<void> {
    this.#runs.delete(key(sessionId, runId));
  }

  #read(sessionId: string, runId: string): PausedRun | undefined {
    const json = this.#runs.get(key(sessionId, runId));
    if (json === undefined) return undefined;
    const run = JSON.parse(json) as PausedRun;
    return this.#clock.expired(run.expiresAt) ? undefined : run;
  }
}

function key(sessionId: string, runId: string): string {
  return `${sessionId}\u0000${runId}`;
}
