import { randomUUID } from 'node:crypto';
import {
  comparePending,
  type PendingApprovalEntry,
  type PendingApprovalIndex,
  type PendingApprovalPosition,
} from '../../app/ports/approvals.js';
import { type PausedRun, PausedRunSchema } from '../../core/paused-run.js';
import {
  DEFAULT_RESUME_CLAIM_MS,
  InvalidRecord,
  type PausedRunClaim,
  type PausedRunClaimOptions,
  PausedRunNotFound,
  type PausedRunStore,
  RunAlreadyResumed,
} from '../../core/stores.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

/** The stored JSON of a run and, next to it (never in it), the claim that holds it. */
interface Entry {
  json: string;
  claim?: { token: string; claimedUntil: number };
}

/**
 * Paused runs in process memory; each run expires at its own `expiresAt`. The pending-approval
 * index is the runs themselves, read in index order.
 */
export class InMemoryPausedRunStore implements PausedRunStore, PendingApprovalIndex {
  readonly #runs = new Map<string, Entry>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async put(run: PausedRun): Promise<void> {
    const parsed = PausedRunSchema.safeParse(run);
    if (!parsed.success) {
      throw new InvalidRecord('paused run', parsed.error.issues[0]?.message ?? 'invalid');
    }
    this.#runs.set(key(run.sessionId, run.runId), { json: JSON.stringify(parsed.data) });
  }

  async get(sessionId: string, runId: string): Promise<PausedRun | undefined> {
    return this.#read(sessionId, runId)?.run;
  }

  async list(sessionId: string): Promise<PausedRun[]> {
    const runs: PausedRun[] = [];
    for (const [k, entry] of this.#runs) {
      if (!k.startsWith(`${sessionId}\u0000`)) continue;
      const run = this.#view(entry);
      if (run) runs.push(run);
    }
    return runs.sort((a, b) => a.createdAt - b.createdAt);
  }

  async claim(
    sessionId: string,
    runId: string,
    options: PausedRunClaimOptions = {},
  ): Promise<PausedRunClaim> {
    // Read and write with no await between: the check-and-set is atomic in one process.
    const found = this.#read(sessionId, runId);
    if (!found) throw new PausedRunNotFound(sessionId, runId);
    // `#read` shows a lapsed claim as pending; `takeover` tells the two apart.
    if (found.run.status !== 'pending') throw new RunAlreadyResumed(sessionId, runId);
    const token = randomUUID();
    const claimedUntil = this.#clock.now() + (options.claimMs ?? DEFAULT_RESUME_CLAIM_MS);
    const run: PausedRun = { ...found.run, status: 'resuming' };
    this.#runs.set(key(sessionId, runId), {
      json: JSON.stringify(run),
      claim: { token, claimedUntil },
    });
    return { run, token, claimedUntil, takeover: found.entry.claim !== undefined };
  }

  async release(sessionId: string, runId: string, token: string): Promise<void> {
    const found = this.#read(sessionId, runId);
    if (found?.entry.claim?.token !== token) return;
    this.#runs.set(key(sessionId, runId), {
      json: JSON.stringify({ ...found.run, status: 'pending' }),
    });
  }

  async delete(sessionId: string, runId: string): Promise<void> {
    this.#runs.delete(key(sessionId, runId));
  }

  async pending(options: { owner?: string; limit: number; after?: PendingApprovalPosition }) {
    const { owner, after, limit } = options;
    const all: PendingApprovalEntry[] = [];
    for (const entry of this.#runs.values()) {
      const run = this.#view(entry);
      if (!run || (owner !== undefined && run.owner !== owner)) continue;
      const { sessionId, runId, createdAt } = run;
      all.push({ sessionId, runId, createdAt, ...(run.owner ? { owner: run.owner } : {}) });
    }
    const later = all.filter((e) => !after || comparePending(e, after) > 0).sort(comparePending);
    return { entries: later.slice(0, limit), more: later.length > limit };
  }

  #read(sessionId: string, runId: string): { run: PausedRun; entry: Entry } | undefined {
    const entry = this.#runs.get(key(sessionId, runId));
    const run = entry && this.#view(entry);
    return run && entry ? { run, entry } : undefined;
  }

  /** The run as callers see it: absent once expired, `pending` once its claim lapsed. */
  #view(entry: Entry): PausedRun | undefined {
    const run = JSON.parse(entry.json) as PausedRun;
    if (this.#clock.expired(run.expiresAt)) return undefined;
    if (run.status === 'resuming' && entry.claim && this.#clock.expired(entry.claim.claimedUntil)) {
      return { ...run, status: 'pending' };
    }
    return run;
  }
}

function key(sessionId: string, runId: string): string {
  return `${sessionId}\u0000${runId}`;
}
