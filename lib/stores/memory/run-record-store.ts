import {
  canMoveRun,
  type RunRecord,
  RunRecordSchema,
  type RunRecordStore,
  type RunTransition,
  type TransitionOptions,
} from '../../app/ports/run-records.js';
import { InvalidRecord } from '../../core/stores.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

/** Run records in process memory, kept for the store's TTL after their last write. */
export class InMemoryRunRecordStore implements RunRecordStore {
  readonly #records = new Map<string, { json: string; expiresAt: number }>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async put(record: RunRecord): Promise<void> {
    const parsed = RunRecordSchema.safeParse(record);
    if (!parsed.success) {
      throw new InvalidRecord('run record', parsed.error.issues[0]?.message ?? 'invalid');
    }
    this.#records.set(`${record.sessionId}\u0000${record.runId}`, {
      json: JSON.stringify(parsed.data),
      expiresAt: this.#clock.expiry(),
    });
  }

  async transition(record: RunRecord, options?: TransitionOptions): Promise<RunTransition> {
    // No await between the read and the write: the check and the put are one step.
    const current = this.#read(record.sessionId, record.runId);
    if (!canMoveRun(current?.status, record.status, options)) return { applied: false, current };
    await this.put(record);
    return { applied: true };
  }

  async get(sessionId: string, runId: string): Promise<RunRecord | undefined> {
    return this.#read(sessionId, runId);
  }

  async listSession(sessionId: string, max: number) {
    const records: RunRecord[] = [];
    for (const key of this.#records.keys()) {
      const [session, runId = ''] = key.split('\u0000');
      if (session !== sessionId) continue;
      const record = this.#read(sessionId, runId);
      if (!record) continue;
      if (records.length === max) return { records, truncated: true };
      records.push(record);
    }
    return { records, truncated: false };
  }

  #read(sessionId: string, runId: string): RunRecord | undefined {
    const item = this.#records.get(`${sessionId}\u0000${runId}`);
    if (!item || this.#clock.expired(item.expiresAt)) return undefined;
    return JSON.parse(item.json) as RunRecord;
  }
}
