import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type {
  JournalEntry,
  JournalRecords,
  RunJournalStore,
  ToolEntry,
} from '../../../../lib/core/journal.js';

interface Stored {
  models: Record<string, JournalEntry>;
  calls: Record<string, ToolEntry>;
}

/**
 * A run journal in one JSON file, written synchronously and atomically (temp file + rename): what
 * a process wrote survives its SIGKILL, as a DynamoDB write would. Test only: one process at a
 * time, every run of the file's tests in it.
 */
export class FileRunJournalStore implements RunJournalStore {
  constructor(readonly file: string) {}

  async load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    const data = this.#read();
    const prefix = `${sessionId}/${runId}/`;
    const mine = <T>(record: Record<string, T>) =>
      Object.entries(record)
        .filter(([key]) => key.startsWith(prefix))
        .map(([, entry]) => entry);
    return [...mine(data.models), ...mine(data.calls)];
  }

  async startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ) {
    const data = this.#read();
    const id = `${sessionId}/${runId}/${callId}`;
    const existing = data.calls[id];
    if (existing) return { won: false as const, entry: existing };
    data.calls[id] = { kind: 'tool', callId, tool, status: 'started', at: Date.now() };
    // The start and what it carries in one atomic file write, as in one DynamoDB put.
    if (records) this.#apply(data, `${sessionId}/${runId}/`, records);
    this.#write(data);
    return { won: true as const };
  }

  async record(sessionId: string, runId: string, records: JournalRecords) {
    const data = this.#read();
    this.#apply(data, `${sessionId}/${runId}/`, records);
    this.#write(data);
  }

  #apply(data: Stored, prefix: string, records: JournalRecords): void {
    for (const { key, response } of records.models ?? []) {
      data.models[prefix + key] ??= { kind: 'model', key, response, at: Date.now() };
    }
    for (const { callId, outcome } of records.outcomes ?? []) {
      const started = data.calls[prefix + callId];
      data.calls[prefix + callId] = {
        kind: 'tool',
        callId,
        tool: started?.tool ?? 'unknown',
        status: 'done',
        outcome,
        at: started?.at ?? Date.now(),
      };
    }
  }

  #read(): Stored {
    if (!existsSync(this.file)) return { models: {}, calls: {} };
    return JSON.parse(readFileSync(this.file, 'utf8')) as Stored;
  }

  #write(data: Stored): void {
    writeFileSync(`${this.file}.tmp`, JSON.stringify(data));
    renameSync(`${this.file}.tmp`, this.file);
  }
}
