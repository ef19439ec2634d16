import { boundTo } from '../core/ownership.js';
import { decodeCursor, encodeCursor, pageLimit } from './paging.js';
import type { AccessPolicy } from './policy.js';
import type { RunRecord } from './ports/run-records.js';
import type { SessionRuns } from './ports/session-runs.js';
import { publicRun } from './run-records.js';

/** The most run records one turns request reads: a session's runs live a TTL, not forever. */
export const MAX_SESSION_RUNS = 1000;

export interface SessionTurnsDeps {
  policy: AccessPolicy;
  runs: SessionRuns;
}

/**
 * `GET /sessions/{id}/turns`: the owner's turns, oldest first (a run and its resumes are one
 * turn, one record): each one's input, status and outcome (reply, pause, error). Paged by
 * (createdAt, runId); only the runs of the session's current life are shown. Limits and the
 * cursor are checked before anything is read; another principal's session is `not-found`.
 */
export async function listTurns(
  deps: SessionTurnsDeps,
  principal: unknown,
  sessionId: string,
  query: { limit?: string; cursor?: string },
) {
  const who = deps.policy.principal(principal);
  const limit = pageLimit(query.limit);
  const after = decodeCursor(query.cursor);
  const session = await deps.policy.owned(who, sessionId);
  const { records, truncated } = await deps.runs.listSession(sessionId, MAX_SESSION_RUNS);
  const turns = records.filter((r) => boundTo(r, session)).sort(compare);
  const from = after
    ? turns.filter((r) => compare(r, { createdAt: after.createdAt, runId: after.id }) > 0)
    : turns;
  const page = from.slice(0, limit);
  const last = page.at(-1);
  const more = from.length > limit && last;
  return {
    sessionId,
    turns: page.map(publicRun),
    ...(more ? { next: encodeCursor({ createdAt: last.createdAt, id: last.runId }) } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}

function compare(
  a: Pick<RunRecord, 'createdAt' | 'runId'>,
  b: Pick<RunRecord, 'createdAt' | 'runId'>,
) {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}
