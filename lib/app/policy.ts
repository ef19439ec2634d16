import { randomUUID } from 'node:crypto';
import { SessionConflict } from '../core/errors.js';
import { isOwner } from '../core/ownership.js';
import { newSession, type SessionData, type SessionStore } from '../core/session.js';
import { isPrincipal, isSafeId, PRINCIPAL_RULE, SAFE_ID_RULE } from '../transport/ids.js';
import { NotFound, Unauthenticated } from './errors.js';
import type { SessionIndex } from './ports/session-index.js';
import { InvalidId } from './validation.js';

/**
 * A session's life as a request finds it before claiming: the one it has (the caller's), or the
 * incarnation it gets if the claim creates it. What depends on the life (a run id) is made first.
 */
export interface SessionLife {
  readonly sessionId: string;
  readonly incarnation: string | undefined;
  readonly existing?: SessionData;
}

export interface AccessPolicyOptions {
  /**
   * Back-office principals (APPROVER_PRINCIPALS): they may decide the paused runs of any session,
   * acting for its owner. Nobody else is implied: a session without an owner belongs to no one.
   */
  approvers?: ReadonlySet<string>;
  /** The owner index (`GET /sessions`): written before a session is created. */
  index?: SessionIndex | undefined;
  now?: () => number;
}

/**
 * The one authorization policy. Every request has a principal; a session's owner is fixed by the
 * first accepted request (a create-only save, so of two racing principals exactly one wins);
 * only the owner may run, resume, subscribe, read or decide. Anyone else, and anyone asking for a
 * session that does not exist, gets the same `not-found`. The owner rule itself is `isOwner`
 * (lib/core/ownership.ts), which the core and fan-out's delivery apply too; what a session keeps
 * is read only while `boundTo` its current life (`incarnation`).
 */
export class AccessPolicy {
  readonly #sessions: Pick<SessionStore, 'load' | 'save'>;
  readonly #approvers: ReadonlySet<string>;
  readonly #index: SessionIndex | undefined;
  readonly #now: () => number;

  constructor(sessions: Pick<SessionStore, 'load' | 'save'>, options: AccessPolicyOptions = {}) {
    this.#sessions = sessions;
    this.#approvers = options.approvers ?? new Set();
    this.#index = options.index;
    this.#now = options.now ?? Date.now;
  }

  /** The caller's principal, or `unauthorized` (absent, empty or malformed). */
  principal(value: unknown): string {
    if (value === undefined || value === null || value === '') throw new Unauthenticated();
    if (!isPrincipal(value)) throw new Unauthenticated(`The principal must be ${PRINCIPAL_RULE}.`);
    return value;
  }

  /**
   * Makes `principal` the owner of `sessionId` unless someone already is: called before a job
   * is queued or a connection subscribed, so nothing of the session ever reaches another.
   */
  async claim(principal: string, sessionId: string, life?: SessionLife): Promise<SessionData> {
    checkSessionId(sessionId);
    if (life?.existing) return life.existing;
    const stored = life ? undefined : await this.#sessions.load(sessionId);
    if (stored) {
      this.#check(principal, sessionId, stored.data);
      return stored.data;
    }
    // A new life of the id: a fresh incarnation, whatever lived under it before.
    const data = newSession(sessionId, this.#now(), principal, life?.incarnation ?? randomUUID());
    // First the index entry: a session is never missing from its owner's list (a lost create
    // leaves an entry the list skips).
    const { createdAt, incarnation } = data;
    await this.#index?.add(principal, { sessionId, createdAt, incarnation });
    try {
      await this.#sessions.save(data, 0);
      return data;
    } catch (err) {
      if (!(err instanceof SessionConflict)) throw err;
      // Another request created it meanwhile: it is ours only if that request was ours too.
      return this.owned(principal, sessionId);
    }
  }

  /** The session's life for `principal` (`not-found` if it is another's), before `claim`. */
  async life(principal: string, sessionId: string): Promise<SessionLife> {
    checkSessionId(sessionId);
    const stored = await this.#sessions.load(sessionId);
    if (!stored) return { sessionId, incarnation: randomUUID() };
    this.#check(principal, sessionId, stored.data);
    return { sessionId, incarnation: stored.data.incarnation, existing: stored.data };
  }

  /** The session, if `principal` owns it; `not-found` otherwise (absent or another's). */
  async owned(principal: string, sessionId: string): Promise<SessionData> {
    checkSessionId(sessionId);
    const stored = await this.#sessions.load(sessionId);
    if (!stored) throw notFound(sessionId);
    this.#check(principal, sessionId, stored.data);
    return stored.data;
  }

  /**
   * Who a decision acts for: the owner deciding, or a configured approver deciding for the
   * owner (the resume then runs as the owner). Anyone else: `not-found`.
   */
  async decider(
    principal: string,
    sessionId: string,
  ): Promise<{ owner: string; session: SessionData }> {
    checkSessionId(sessionId);
    const stored = await this.#sessions.load(sessionId);
    const owner = stored?.data.owner;
    // An approver's grant is explicit and acts for an owner: an ownerless session has none.
    const mayDecide =
      isOwner(owner, principal) || (owner !== undefined && this.#approvers.has(principal));
    if (stored && owner !== undefined && mayDecide) return { owner, session: stored.data };
    throw notFound(sessionId);
  }

  /** A configured approver: it may list and decide every session's paused runs. */
  isApprover(principal: string): boolean {
    return this.#approvers.has(principal);
  }

  #check(principal: string, sessionId: string, data: SessionData): void {
    if (!isOwner(data.owner, principal)) throw notFound(sessionId);
  }
}

function notFound(sessionId: string): NotFound {
  return new NotFound(`Session "${sessionId}"`);
}

function checkSessionId(sessionId: string): void {
  if (!isSafeId(sessionId)) throw new InvalidId('sessionId', SAFE_ID_RULE);
}
