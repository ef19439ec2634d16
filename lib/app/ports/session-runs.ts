import type { RunRecord } from './run-records.js';

/**
 * A session's run records (`GET /sessions/{id}/turns`), read from the session's own partition,
 * at most `max` of them (`truncated` when more are kept). Implemented by the run record stores.
 */
export interface SessionRuns {
  listSession(
    sessionId: string,
    max: number,
  ): Promise<{ records: RunRecord[]; truncated: boolean }>;
}
