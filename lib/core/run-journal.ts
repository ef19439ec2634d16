import { RecordedToolFailure, ToolOutcomeUnknown } from './errors.js';
import type {
  JournalEntry,
  RunJournal,
  RunJournalStore,
  ToolCallOutcome,
  ToolEffects,
  ToolEntry,
} from './journal.js';
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
}

/** Opens one run's journal: reads it when the run may be a replay. */
export async function openRunJournal(options: OpenRunJournalOptions): Promise<RunJournal> {
  const { store, sessionId, runId } = options;
  const entries = options.replay ? await store.load(sessionId, runId) : [];
  return new JournalOfRun(store, sessionId, runId, entries);
}

/** Tool errors carry a model-visible `kind`; anything else is recorded as `tool-error`. */
function failureOf(err: unknown): ToolCallOutcome {
  const kind = (err as { kind?: unknown })?.kind;
  return {
    ok: false,
    error: {
      kind: typeof kind === 'string' ? kind : 'tool-error',
      message: err instanceof Error ? err.message : String(err),
    },
  };
}

/** A tool's result as JSON: what a replay hands back must survive the store. */
function asJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

class JournalOfRun implements RunJournal {
  readonly sessionId: string;
  readonly runId: string;
  readonly #store: RunJournalStore;
  readonly #models = new Map<string, JsonValue>();
  readonly #calls = new Map<string, ToolEntry>();
  /** Calls of this attempt that the journal does not keep (read-only tools), for the counts. */
  readonly #unjournaled = new Map<string, string>();

  constructor(
    store: RunJournalStore,
    sessionId: string,
    runId: string,
    entries: readonly JournalEntry[],
  ) {
    this.#store = store;
    this.sessionId = sessionId;
    this.runId = runId;
    for (const entry of entries) {
      if (entry.kind === 'model') this.#models.set(entry.key, entry.response);
      else this.#calls.set(entry.callId, entry);
    }
  }

  recordedModel(key: string): JsonValue | undefined {
    return this.#models.get(key);
  }

  async recordModel(key: string, response: JsonValue): Promise<void> {
    if (this.#models.has(key)) return;
    this.#models.set(key, response);
    await this.#store.putModel(this.sessionId, this.runId, key, response);
  }

  async tool<T>(
    call: { callId: string; tool: string; effects?: ToolEffects },
    run: () => Promise<T>,
  ): Promise<T> {
    const { callId, tool, effects } = call;
    const rerunnable = effects?.readOnly === true || effects?.idempotent === true;
    // Read-only calls change nothing: no record needed, they simply run again on replay.
    if (effects?.readOnly) {
      this.#unjournaled.set(callId, tool);
      return run();
    }
    let entry = this.#calls.get(callId);
    if (!entry) {
      const started = await this.#store.startCall(this.sessionId, this.runId, callId, tool);
      if (started.won) {
        this.#calls.set(callId, { kind: 'tool', callId, tool, status: 'started', at: Date.now() });
        return this.#run(callId, tool, run);
      }
      entry = started.entry;
      this.#calls.set(callId, entry);
    }
    if (entry.status === 'done' && entry.outcome) return replayOutcome<T>(entry.outcome);
    if (!rerunnable)
      throw new ToolOutcomeUnknown(tool, callId, { pause: effects?.onUnknownOutcome === 'pause' });
    return this.#run(callId, tool, run);
  }

  async #run<T>(callId: string, tool: string, run: () => Promise<T>): Promise<T> {
    let outcome: ToolCallOutcome;
    let result: T;
    try {
      result = await run();
      outcome = { ok: true, result: asJson(result) };
    } catch (err) {
      // A cancelled call may have done part of its work: its outcome stays unknown.
      if (isAbort(err)) throw err;
      await this.#finish(callId, tool, failureOf(err));
      throw err;
    }
    await this.#finish(callId, tool, outcome);
    return result;
  }

  async #finish(callId: string, tool: string, outcome: ToolCallOutcome): Promise<void> {
    await this.#store.finishCall(this.sessionId, this.runId, callId, outcome);
    this.#calls.set(callId, {
      kind: 'tool',
      callId,
      tool,
      status: 'done',
      outcome,
      at: Date.now(),
    });
  }

  toolCalls(tool?: string): number {
    let count = 0;
    for (const entry of this.#calls.values())
      if (tool === undefined || entry.tool === tool) count++;
    for (const name of this.#unjournaled.values()) if (tool === undefined || name === tool) count++;
    return count;
  }

  idempotencyKey(callId: string): string {
    return `${this.runId}:${callId}`;
  }
}

function replayOutcome<T>(outcome: ToolCallOutcome): T {
  if (outcome.ok) return outcome.result as T;
  throw new RecordedToolFailure(outcome.error.kind, outcome.error.message);
}
