import type { PostHook } from '../../core/hooks.js';
import type {
  JournalEntry,
  JournalRecords,
  RunJournalStore,
  ToolEntry,
} from '../../core/journal.js';

/**
 * A journal store whose next write carrying an outcome is lost, as when the process dies right
 * after a tool ran and before its outcome was written: the call stays `started`, and no later
 * write of the attempt brings that outcome back (a dead process writes nothing more).
 */
export class LosingJournalStore implements RunJournalStore {
  readonly #inner: RunJournalStore;
  #loseNext = false;
  readonly #lost = new Set<string>();
  /** Every write request, with the bytes of each model response and the outcomes written. */
  readonly writes = { requests: 0, model: [] as number[], outcomes: 0 };

  constructor(inner: RunJournalStore) {
    this.#inner = inner;
  }

  loseNextOutcome(): void {
    this.#loseNext = true;
  }

  load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    return this.#inner.load(sessionId, runId);
  }

  startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ): Promise<{ won: true } | { won: false; entry: ToolEntry }> {
    const kept = this.#write(records ?? {});
    return this.#inner.startCall(sessionId, runId, callId, tool, kept);
  }

  async record(sessionId: string, runId: string, records: JournalRecords): Promise<void> {
    await this.#inner.record(sessionId, runId, this.#write(records));
  }

  /** Counts one write; throws (the crash) or strips what was lost. */
  #write(records: JournalRecords): JournalRecords {
    this.writes.requests += 1;
    const outcomes = (records.outcomes ?? []).filter((o) => !this.#lost.has(o.callId));
    if (this.#loseNext && outcomes.length > 0) {
      this.#loseNext = false;
      for (const { callId } of outcomes) this.#lost.add(callId);
      throw new Error('simulated crash: the tool ran, its outcome was never written');
    }
    for (const { response } of records.models ?? []) {
      this.writes.model.push(Buffer.byteLength(JSON.stringify(response)));
    }
    this.writes.outcomes += outcomes.length;
    return { ...records, outcomes };
  }
}

/** A post-hook that fails the next turn after the runner finished, before the session save. */
export class CrashBeforeSave implements PostHook {
  readonly name = 'crash-before-save';
  #armed = false;

  arm(): void {
    this.#armed = true;
  }

  /** For a turn that may have failed earlier on its own (then the hook never ran). */
  disarm(): void {
    this.#armed = false;
  }

  onRun(): undefined {
    if (!this.#armed) return undefined;
    this.#armed = false;
    throw new Error('simulated crash after the run, before the session was saved');
  }
}
