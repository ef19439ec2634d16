import type {
  JournalEntry,
  JournalRecords,
  RunJournalStore,
  ToolCallOutcome,
  ToolEntry,
} from '../../core/journal.js';
import type { JsonValue } from '../../core/session.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

interface RunEntries {
  readonly models: Map<string, string>;
  readonly calls: Map<string, string>;
  expiresAt: number;
}

/**
 * Run journals in process memory (JSON text, so callers never share objects with it), kept for
 * the store's TTL after their last write. Same first-writer-wins rules as the DynamoDB store; a
 * start and the records it carries are applied together or not at all.
 */
export class InMemoryRunJournalStore implements RunJournalStore {
  readonly #runs = new Map<string, RunEntries>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    const run = this.#get(sessionId, runId);
    if (!run) return [];
    const models = [...run.models.values()]
      .map((json) => JSON.parse(json) as JournalEntry)
      .sort((a, b) => a.at - b.at);
    const calls = [...run.calls.values()]
      .map((json) => JSON.parse(json) as ToolEntry)
      .sort((a, b) => a.at - b.at);
    return [...models, ...calls];
  }

  async startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ) {
    const run = this.#open(sessionId, runId);
    const existing = run.calls.get(callId);
    if (existing !== undefined) {
      return { won: false as const, entry: JSON.parse(existing) as ToolEntry };
    }
    const entry: ToolEntry = {
      kind: 'tool',
      callId,
      tool,
      status: 'started',
      at: this.#clock.now(),
    };
    run.calls.set(callId, JSON.stringify(entry));
    if (records) this.#apply(run, records);
    return { won: true as const };
  }

  async record(sessionId: string, runId: string, records: JournalRecords): Promise<void> {
    this.#apply(this.#open(sessionId, runId), records);
  }

  /** One model response, as one write (tests, tools). */
  putModel(sessionId: string, runId: string, key: string, response: JsonValue): Promise<void> {
    return this.record(sessionId, runId, { models: [{ key, response }] });
  }

  /** One call's outcome, as one write (tests, tools). */
  finishCall(
    sessionId: string,
    runId: string,
    callId: string,
    outcome: ToolCallOutcome,
  ): Promise<void> {
    return this.record(sessionId, runId, { outcomes: [{ callId, outcome }] });
  }

  #apply(run: RunEntries, records: JournalRecords): void {
    const at = this.#clock.now();
    for (const { key, response } of records.models ?? []) {
      if (run.models.has(key)) continue;
      run.models.set(key, JSON.stringify({ kind: 'model', key, response, at }));
    }
    for (const { callId, outcome, doneAt } of records.outcomes ?? []) {
      const existing = run.calls.get(callId);
      const started = existing === undefined ? undefined : (JSON.parse(existing) as ToolEntry);
      const entry: ToolEntry = {
        kind: 'tool',
        callId,
        tool: started?.tool ?? 'unknown',
        status: 'done',
        outcome,
        at: started?.at ?? at,
        doneAt: doneAt ?? at,
      };
      run.calls.set(callId, JSON.stringify(entry));
    }
  }

  #get(sessionId: string, runId: string): RunEntries | undefined {
    const run = this.#runs.get(`${sessionId}\u0000${runId}`);
    if (!run || this.#clock.expired(run.expiresAt)) return undefined;
    return run;
  }

  #open(sessionId: string, runId: string): RunEntries {
    let run = this.#get(sessionId, runId);
    if (!run) {
      run = { models: new Map(), calls: new Map(), expiresAt: 0 };
      this.#runs.set(`${sessionId}\u0000${runId}`, run);
    }
    run.expiresAt = this.#clock.expiry();
    return run;
  }
}
