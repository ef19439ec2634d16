import type { PostHook } from '../../core/hooks.js';
import type {
  JournalEntry,
  RunJournalStore,
  ToolCallOutcome,
  ToolEntry,
} from '../../core/journal.js';
import type { JsonValue } from '../../core/session.js';

/**
 * A journal store whose next `finishCall` is lost, as when the process dies right after a tool
 * ran and before its outcome was written: the call stays `started`.
 */
export class LosingJournalStore implements RunJournalStore {
  readonly #inner: RunJournalStore;
  #loseNext = false;
  /** Every write, by kind, with the bytes of each recorded model response. */
  readonly writes = { model: [] as number[], start: 0, finish: 0 };

  constructor(inner: RunJournalStore) {
    this.#inner = inner;
  }

  loseNextOutcome(): void {
    this.#loseNext = true;
  }

  load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    return this.#inner.load(sessionId, runId);
  }

  putModel(sessionId: string, runId: string, key: string, response: JsonValue): Promise<void> {
    this.writes.model.push(Buffer.byteLength(JSON.stringify(response)));
    return this.#inner.putModel(sessionId, runId, key, response);
  }

  startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
  ): Promise<{ won: true } | { won: false; entry: ToolEntry }> {
    this.writes.start += 1;
    return this.#inner.startCall(sessionId, runId, callId, tool);
  }

  async finishCall(
    sessionId: string,
    runId: string,
    callId: string,
    outcome: ToolCallOutcome,
  ): Promise<void> {
    this.writes.finish += 1;
    if (this.#loseNext) {
      this.#loseNext = false;
      throw new Error('simulated crash: the tool ran, its outcome was never written');
    }
    await this.#inner.finishCall(sessionId, runId, callId, outcome);
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
