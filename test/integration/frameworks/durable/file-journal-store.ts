import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type {
  JournalEntry,
  RunJournalStore,
  ToolCallOutcome,
  ToolEntry,
} from '../../../../lib/core/journal.js';
import type { JsonValue } from '../../../../lib/core/session.js';

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

  async putModel(sessionId: string, runId: string, key: string, response: JsonValue) {
    const data = this.#read();
    const id = `${sessionId}/${runId}/${key}`;
    data.models[id] ??= { kind: 'model', key, response, at: Date.now() };
    this.#write(data);
  }

  async startCall(sessionId: string, runId: string, callId: string, tool: string) {
    const data = this.#read();
    const id = `${sessionId}/${runId}/${callId}`;
    const existing = data.calls[id];
    if (existing) return { won: false as const, entry: existing };
    data.calls[id] = { kind: 'tool', callId, tool, status: 'started', at: Date.now() };
    this.#write(data);
    return { won: true as const };
  }

  async finishCall(sessionId: string, runId: string, callId: string, outcome: ToolCallOutcome) {
    const data = this.#read();
    const id = `${sessionId}/${runId}/${callId}`;
    const started = data.calls[id];
    data.calls[id] = {
      kind: 'tool',
      callId,
      tool: started?.tool ?? 'unknown',
      status: 'done',
      outcome,
      at: started?.at ?? Date.now(),
    };
    this.#write(data);
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
