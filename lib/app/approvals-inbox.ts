import { boundTo, isOwner } from '../core/ownership.js';
import type { PausedRun } from '../core/paused-run.js';
import type { Interruption } from '../core/requests.js';
import type { SessionStore } from '../core/session.js';
import type { PausedRunStore } from '../core/stores.js';
import { isSafeId } from '../transport/ids.js';
import { NotFound } from './errors.js';
import { InvalidCursor, pageLimit } from './paging.js';
import type { AccessPolicy } from './policy.js';
import type {
  PendingApprovalEntry,
  PendingApprovalIndex,
  PendingApprovalPosition,
} from './ports/approvals.js';

export interface InboxDeps {
  policy: AccessPolicy;
  sessions: Pick<SessionStore, 'load'>;
  pausedRuns: Pick<PausedRunStore, 'get'>;
  index?: PendingApprovalIndex | undefined;
}

/** A paused run as the inbox shows it: who it is for, and each call waiting with its arguments. */
export interface PendingApproval {
  sessionId: string;
  runId: string;
  agent: string;
  /** The session's owner: the resume runs as them, whoever decides. */
  owner: string;
  createdAt: number;
  expiresAt: number;
  interruptions: Interruption[];
}

/**
 * `GET /approvals`: the paused runs the caller may decide, oldest first (the longest waiting on
 * top), paged. A configured approver (APPROVER_PRINCIPALS) gets every session's; anyone else only
 * their own (their owner partition of the index, never a filter over others'). Each entry is
 * checked against the run and the session as they are now: decided, being decided, expired, of
 * another life of the session or (for a plain principal) another's, it is skipped, so a page may
 * hold fewer than `limit`; `next` is there while more may follow. Decide through
 * `POST /sessions/{id}/runs/{runId}/decisions` (FrontDoor.resumeNow, channel `http`).
 */
export async function listApprovals(
  deps: InboxDeps,
  principal: unknown,
  query: { limit?: string; cursor?: string },
): Promise<{ approvals: PendingApproval[]; approver: boolean; next?: string }> {
  const who = deps.policy.principal(principal);
  const limit = pageLimit(query.limit);
  const after = decodeApprovalCursor(query.cursor);
  if (!deps.index) throw new NotFound('Route GET /approvals (no approvals index here)');
  const approver = deps.policy.isApprover(who);
  const page = await deps.index.pending({
    limit,
    ...(approver ? {} : { owner: who }),
    ...(after ? { after } : {}),
  });
  const checked = await Promise.all(page.entries.map((e) => current(deps, who, approver, e)));
  const approvals = checked.filter((a): a is PendingApproval => a !== undefined);
  const last = page.entries.at(-1);
  return {
    approvals,
    approver,
    ...(page.more && last ? { next: encodeApprovalCursor(last) } : {}),
  };
}

async function current(
  deps: InboxDeps,
  who: string,
  approver: boolean,
  entry: PendingApprovalEntry,
): Promise<PendingApproval | undefined> {
  const [run, stored] = await Promise.all([
    deps.pausedRuns.get(entry.sessionId, entry.runId),
    deps.sessions.load(entry.sessionId),
  ]);
  const session = stored?.data;
  // `resuming`: someone's decision runs now. Another createdAt: an entry of an earlier pause.
  if (run?.status !== 'pending' || run.createdAt !== entry.createdAt) return undefined;
  if (!session?.owner || !boundTo(run, session)) return undefined;
  if (!approver && !isOwner(session.owner, who)) return undefined;
  return shown(run, session.owner);
}

function shown(run: PausedRun, owner: string): PendingApproval {
  const { sessionId, runId, agent, createdAt, expiresAt } = run;
  const interruptions = run.interruptions.map((i) => ({
    id: i.id,
    kind: i.kind,
    ...(i.toolName === undefined ? {} : { toolName: i.toolName }),
    ...(i.arguments === undefined ? {} : { arguments: i.arguments }),
    ...(i.message === undefined ? {} : { message: i.message }),
  }));
  return { sessionId, runId, agent, owner, createdAt, expiresAt, interruptions };
}

/** Opaque to clients: base64url of `[createdAt, sessionId, runId]`, checked strictly. */
export function encodeApprovalCursor(position: PendingApprovalPosition): string {
  const { createdAt, sessionId, runId } = position;
  return Buffer.from(JSON.stringify([createdAt, sessionId, runId])).toString('base64url');
}

export function decodeApprovalCursor(value: string | undefined) {
  if (value === undefined || value === '') return undefined;
  const bad = () => new InvalidCursor('The cursor is not one this route gave out.');
  if (value.length > 600 || !/^[A-Za-z0-9_-]+$/.test(value)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw bad();
  const [createdAt, sessionId, runId] = parsed as unknown[];
  if (!Number.isSafeInteger(createdAt) || (createdAt as number) < 0) throw bad();
  if (!isSafeId(sessionId) || !isSafeId(runId)) throw bad();
  return { createdAt: createdAt as number, sessionId, runId } satisfies PendingApprovalPosition;
}
