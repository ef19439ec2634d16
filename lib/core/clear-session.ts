import { SessionForbidden } from './errors.js';
import { isOwner } from './ownership.js';
import type { TurnEngine } from './turn-engine.js';

export interface ClearSessionOptions {
  /** Who asks: a session owned by someone else is refused (`session-forbidden`). */
  readonly principal?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Forgets a session's conversation (the design's `clear_session`): its head and every runner's
 * slot, its framework context and its paused runs. Under the session's lock, so it never lands
 * in the middle of a turn. Run records, the tool ledger and run journals stay (an audit trail,
 * under their own keys, expired by TTL), bound to the cleared life (`ownership.ts`): no one
 * reaches them from the id's next life. A session that does not exist answers `cleared: false`.
 */
export async function clearSession(
  engine: TurnEngine,
  sessionId: string,
  options: ClearSessionOptions = {},
): Promise<{ sessionId: string; cleared: boolean }> {
  const release = await engine.lock.acquire(sessionId, options.signal);
  try {
    const stored = await engine.deps.sessions.load(sessionId);
    if (!stored) return { sessionId, cleared: false };
    const { owner, paused } = stored.data;
    if (!isOwner(owner, options.principal)) throw new SessionForbidden(sessionId);
    // Paused runs first: a resume of one must not bring back what is cleared.
    for (const run of paused ?? []) await engine.pause?.pausedRuns.delete(sessionId, run.runId);
    await engine.deps.sessions.delete(sessionId);
    return { sessionId, cleared: true };
  } finally {
    await release();
  }
}
