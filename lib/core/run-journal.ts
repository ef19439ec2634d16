import { AgentKernelError, RecordedToolFailure, ToolOutcomeUnknown } from './errors.js';
import type {
  CallState,
  JournalEntry,
  JournalRecords,
  ModelRecord,
  OutcomeRecord,
  RunJournal,
  RunJournalStore,
  ToolCallOutcome,
  ToolEffects,
  ToolEntry,
} from './journal.js';
import { asJson } from './model-step.js';
import type { JsonValue } from './session.js';

export interface OpenRunJournalOptions {
  readonly store: RunJournalStore;
  readonly sessionId: string;
  readonly runId: string;
  /**
   * Read what earlier attempts recorded (a retried, redelivered or resumed run). A run known to be
   * new skips the read; a call recorded by an attempt it did not read is still caught by the
   * conditional start.
   */
  readonly replay: boolean;
  readonly now?: () => number;
}

/** Opens one run's journal: reads it (one request) only when the run may be a replay. */
export async function openRunJournal(options: OpenRunJournalOptions): Promise<RunJournal> {
  const { store, sessionId, runId } = options;
  const entries = options.replay ? await store.load(sessionId, runId) : [];
  return new JournalOfRun(options, entries);
}

/** The stable key of one call, with or without a journal: run + call. */
export function idempotencyKeyOf(runId: string, callId: string): string {
  return `${runId}:${callId}`;
}

/**
 * What is recorded of a failure: the model-visible error. Our errors keep their code and message;
 * a foreign exception only its class name (its text may hold secrets, and the record is stored).
 */
export function failureOutcome(err: unknown): ToolCallOutcome {
  if (err instanceof AgentKernelError) {
    return { ok: false, error: { kind: err.code, message: err.message } };
  }
  const name = err instanceof Error ? err.constructor?.name || err.name || 'Error' : typeof err;
  return { ok: false, error: { kind: 'tool-failed', message: `The tool failed with ${name}.` } };
}

/** `scope:<sha256 hex>`: a key as runners gave it before chained keys (`scope:h:<hex>`). */
function isLegacyKey(key: string): boolean {
  return /^[a-z-]+:[0-9a-f]{64}$/.test(key);
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

class JournalOfRun implements RunJournal {
  readonly sessionId: string;
  readonly runId: string;
  readonly #store: RunJournalStore;
  readonly #now: () => number;
  readonly #models = new Map<string, JsonValue>();
  /** Whether a model key of the whole-request form (modelRequestKey with a scope) was loaded. */
  #legacyKeys = false;
  readonly #calls = new Map<string, ToolEntry>();
  /** Every call counted for run limits, by call id: recorded ones and this attempt's others. */
  readonly #counted = new Map<string, string>();
  /** Calls this attempt answered from the journal instead of running them. */
  readonly #replayed = new Set<string>();
  /** Recorded by this attempt, not yet written: they ride on the next write. */
  #heldModels: ModelRecord[] = [];
  #heldOutcomes: OutcomeRecord[] = [];

  constructor(options: OpenRunJournalOptions, entries: readonly JournalEntry[]) {
    this.#store = options.store;
    this.sessionId = options.sessionId;
    this.runId = options.runId;
    this.#now = options.now ?? Date.now;
    for (const entry of entries) {
      if (entry.kind === 'model') {
        this.#models.set(entry.key, entry.response);
        if (isLegacyKey(entry.key)) this.#legacyKeys = true;
      } else this.#remember(entry);
    }
  }

  recordedModel(key: string, legacyKey?: () => string): JsonValue | undefined {
    const recorded = this.#models.get(key);
    if (recorded !== undefined || !legacyKey || !this.#legacyKeys) return recorded;
    return this.#models.get(legacyKey());
  }

  async recordModel(key: string, response: JsonValue): Promise<void> {
    if (this.#models.has(key)) return;
    this.#models.set(key, response);
    this.#heldModels.push({ key, response });
  }

  async flush(): Promise<void> {
    const records = this.#take();
    if (!records) return;
    try {
      await this.#store.record(this.sessionId, this.runId, records);
    } catch (err) {
      this.#giveBack(records);
      throw err;
    }
  }

  /** Everything held, taken for one write (undefined: nothing held). */
  #take(): JournalRecords | undefined {
    if (this.#heldModels.length === 0 && this.#heldOutcomes.length === 0) return undefined;
    const records = { models: this.#heldModels, outcomes: this.#heldOutcomes };
    this.#heldModels = [];
    this.#heldOutcomes = [];
    return records;
  }

  /** A write that failed wrote nothing: its records are held again, before any held since. */
  #giveBack(records: JournalRecords): void {
    this.#heldModels = [...(records.models ?? []), ...this.#heldModels];
    this.#heldOutcomes = [...(records.outcomes ?? []), ...this.#heldOutcomes];
  }

  async #start(callId: string, tool: string) {
    const records = this.#take();
    try {
      const started = await this.#store.startCall(
        this.sessionId,
        this.runId,
        callId,
        tool,
        records,
      );
      // A lost start wrote nothing: what it carried rides on the next write.
      if (!started.won && records) this.#giveBack(records);
      return started;
    } catch (err) {
      if (records) this.#giveBack(records);
      throw err;
    }
  }

  async tool<T>(
    call: { callId: string; tool: string; effects?: ToolEffects },
    run: () => Promise<T>,
  ): Promise<T> {
    const { callId, tool, effects } = call;
    // Read-only calls change nothing: no record needed, they simply run again on replay.
    if (effects?.readOnly) {
      this.countCall(callId, tool);
      return run();
    }
    let entry = this.#calls.get(callId);
    if (!entry) {
      const started = await this.#start(callId, tool);
      if (started.won) {
        this.#remember({ kind: 'tool', callId, tool, status: 'started', at: this.#now() });
        return this.#run(callId, tool, run);
      }
      entry = started.entry;
      this.#remember(entry);
    }
    if (entry.status === 'done' && entry.outcome) {
      this.#replayed.add(callId);
      return replayOutcome<T>(entry.outcome);
    }
    if (!effects?.idempotent) {
      throw new ToolOutcomeUnknown(tool, callId, { pause: effects?.onUnknownOutcome === 'pause' });
    }
    // Idempotent: the same key again has no further effect.
    return this.#run(callId, tool, run);
  }

  async #run<T>(callId: string, tool: string, run: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (err) {
      // A cancelled call may have done part of its work: its outcome stays unknown.
      if (isAbort(err)) throw err;
      this.#finish(callId, tool, failureOutcome(err));
      throw err;
    }
    this.#finish(callId, tool, { ok: true, result: asJson(result) });
    return result;
  }

  /** Held, not written: the outcome rides on the next call's start or the runner's end. */
  #finish(callId: string, tool: string, outcome: ToolCallOutcome): void {
    const doneAt = this.#now();
    this.#heldOutcomes.push({ callId, outcome, doneAt });
    const at = this.#calls.get(callId)?.at ?? doneAt;
    this.#remember({ kind: 'tool', callId, tool, status: 'done', outcome, at, doneAt });
  }

  #remember(entry: ToolEntry): void {
    this.#calls.set(entry.callId, entry);
    this.#counted.set(entry.callId, entry.tool);
  }

  toolCalls(tool?: string): number {
    if (tool === undefined) return this.#counted.size;
    let count = 0;
    for (const name of this.#counted.values()) if (name === tool) count++;
    return count;
  }

  countCall(callId: string, tool: string): void {
    if (!this.#counted.has(callId)) this.#counted.set(callId, tool);
  }

  replayed(callId: string): boolean {
    return this.#replayed.has(callId);
  }

  recordedCall(callId: string): ToolEntry | undefined {
    return this.#calls.get(callId);
  }

  callState(callId: string): CallState {
    return this.#calls.get(callId)?.status ?? 'none';
  }

  idempotencyKey(callId: string): string {
    return idempotencyKeyOf(this.runId, callId);
  }
}

function replayOutcome<T>(outcome: ToolCallOutcome): T {
  if (outcome.ok) return outcome.result as T;
  throw new RecordedToolFailure(outcome.error.kind, outcome.error.message);
}
