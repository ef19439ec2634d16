import { isOwner } from '../core/ownership.js';
import type { SessionData, SessionStore } from '../core/session.js';
import { NotFound } from './errors.js';
import { decodeCursor, encodeCursor, pageLimit } from './paging.js';
import type { AccessPolicy } from './policy.js';
import type { SessionIndex, SessionIndexEntry } from './ports/session-index.js';

export interface SessionListDeps {
  policy: AccessPolicy;
  sessions: Pick<SessionStore, 'load'>;
  index?: SessionIndex;
}

/** One of the caller's sessions as the list shows it: no state, no conversation. */
export interface SessionSummary {
  sessionId: string;
  agent?: string;
  turns: number;
  paused: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * `GET /sessions`: the caller's own sessions, newest first, paged. Read from the owner index (the
 * caller's partition only), each entry checked against the session as it is now: gone, another's
 * or of another life of the id, it is skipped, so a page may hold fewer than `limit`; `next` is
 * there while more may follow.
 */
export async function listSessions(
  deps: SessionListDeps,
  principal: unknown,
  query: { limit?: string; cursor?: string },
): Promise<{ sessions: SessionSummary[]; next?: string }> {
  const who = deps.policy.principal(principal);
  const limit = pageLimit(query.limit);
  const after = decodeCursor(query.cursor);
  if (!deps.index) throw new NotFound('Route GET /sessions (no session index here)');
  const start = after ? { after: { createdAt: after.createdAt, sessionId: after.id } } : {};
  const page = await deps.index.page(who, { limit, ...start });
  const loaded = await Promise.all(page.entries.map((entry) => current(deps, who, entry)));
  const sessions = loaded.filter((s): s is SessionSummary => s !== undefined);
  const last = page.entries.at(-1);
  return {
    sessions,
    ...(page.more && last
      ? { next: encodeCursor({ createdAt: last.createdAt, id: last.sessionId }) }
      : {}),
  };
}

async function current(
  deps: SessionListDeps,
  who: string,
  entry: SessionIndexEntry,
): Promise<SessionSummary | undefined> {
  const stored = await deps.sessions.load(entry.sessionId);
  const data = stored?.data;
  if (!data || !isOwner(data.owner, who)) return undefined;
  if (entry.incarnation !== undefined && data.incarnation !== entry.incarnation) return undefined;
  return summary(data);
}

function summary(data: SessionData): SessionSummary {
  return {
    sessionId: data.id,
    ...(data.agent ? { agent: data.agent } : {}),
    turns: data.turns,
    paused: data.paused?.length ?? 0,
    createdAt: data.createdAt,
    updatedAt: data.updatedAt,
  };
}
