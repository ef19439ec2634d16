import { bindingOf, boundTo } from '../core/ownership.js';
import type { Reply } from '../core/requests.js';
import type { Decision } from '../core/runner.js';
import type { SessionData } from '../core/session.js';
import { PausedRunNotFound } from '../core/stores.js';
import type { AcceptedMessage, RunJob } from '../transport/protocol.js';
import { RunAlreadyDecided } from './errors.js';
import type { AccessPolicy } from './policy.js';
import type { FrontDoorDeps, SentSeqs, TurnRunner } from './ports.js';
import type { RunRecords, RunRef } from './run-records.js';
import { checkId } from './validation.js';

export type Accepted = Omit<AcceptedMessage, 'type'>;

export interface ResumeRequest {
  principal: unknown;
  requestId?: string;
  sessionId: string;
  runId: string;
  decisions: readonly Decision[];
  connectionId?: string;
  /**
   * Where a configured approver (APPROVER_PRINCIPALS) may decide for the owner: the approvals
   * queue, or the HTTP decisions route (the approvals inbox). Unset (WebSocket): the owner only,
   * since a decision there subscribes the connection to the session's stream.
   */
  channel?: 'approvals' | 'http';
}

/** One use case's call: the principal checked, the session named, what it asks. */
export interface Call<R> {
  principal: string;
  sessionId: string;
  request: R;
  timeoutMs?: number;
  /** Set once the use case ran here: unset, the answer was a stored one (an idempotent replay). */
  ran?: boolean;
}

type Idempotent = <R extends { requestId?: string }, T>(
  kind: string,
  fn: (call: Call<R>) => Promise<T>,
  payload: (request: R) => unknown,
) => (call: Call<R>) => Promise<T>;

/** What the resume use cases share with the front door (lib/app/front-door.ts). */
export interface FrontParts {
  deps: FrontDoorDeps;
  policy: AccessPolicy;
  records: RunRecords;
  now: () => number;
  newId: () => string;
  idempotent: Idempotent;
  admitQueued<T>(
    principal: string,
    runId: string,
    requestId: string,
    accept: () => Promise<T>,
  ): Promise<T>;
  admitHere(
    principal: string,
    timeoutMs: number | undefined,
    turn: () => Promise<Reply>,
  ): Promise<Reply>;
  recorded(
    ref: RunRef,
    options: { timeoutMs: number | undefined; resume?: boolean; refused?: 'winner' | 'conflict' },
    turn: (signal: AbortSignal | undefined, sent: SentSeqs) => Promise<Reply>,
  ): Promise<Reply>;
  send(job: RunJob): Promise<void>;
  turns(): TurnRunner;
  /** After an answer: a replay is checked against `mayRead`, then the connection subscribed. */
  answered(
    call: Call<unknown>,
    connectionId?: string,
    mayRead?: () => Promise<unknown>,
  ): Promise<void>;
}

/** Who decides: the principal asking, the owner the resume runs as, and the session. */
interface Decider {
  actor: string;
  session: SessionData;
  /** A configured approver deciding another's run (not the owner). */
  forOwner: boolean;
}

/**
 * The resume use cases behind `FrontDoor.submitResume` / `resumeNow`: decisions for a paused run,
 * by its owner or (approvals queue, HTTP decisions route) a configured approver acting for the
 * owner. Exactly once: the paused run's claim lets one resume through; an approver who lost the
 * race gets `run-already-resumed`, never another's outcome as if its own decision had run.
 */
export class Resumes {
  readonly #parts: FrontParts;
  readonly #submit: (call: Call<ResumeRequest>) => Promise<Accepted>;
  readonly #here: (call: Call<ResumeRequest>) => Promise<Reply>;

  constructor(parts: FrontParts) {
    this.#parts = parts;
    const payload = (r: ResumeRequest) => ({ runId: r.runId, decisions: r.decisions });
    this.#submit = parts.idempotent('queued-resume', (call) => this.#queue(call), payload);
    this.#here = parts.idempotent('resume', (call) => this.#resumeHere(call), payload);
  }

  /** Queues the resume of a paused run (WebSocket, approvals queue). */
  async submit(request: ResumeRequest): Promise<Accepted> {
    const call = this.#call(request);
    const accepted = await this.#submit(call);
    await this.#answered(call, request.connectionId);
    return accepted;
  }

  /** Resumes a paused run here (HTTP decisions, invoke). */
  async now(request: ResumeRequest, options: { timeoutMs?: number } = {}): Promise<Reply> {
    const call = { ...this.#call(request), ...options };
    const reply = await this.#here(call);
    await this.#answered(call);
    return reply;
  }

  #call(request: ResumeRequest): Call<ResumeRequest> {
    const principal = this.#parts.policy.principal(request.principal);
    if (request.requestId !== undefined) checkId('requestId', request.requestId);
    checkId('sessionId', request.sessionId);
    checkId('runId', request.runId);
    return { principal, sessionId: request.sessionId, request };
  }

  /** A replayed answer only while the caller may still decide there (owner, or approver). */
  #answered(call: Call<ResumeRequest>, connectionId?: string): Promise<void> {
    const { channel } = call.request;
    const mayRead = channel
      ? () => this.#parts.policy.decider(call.principal, call.sessionId)
      : undefined;
    return this.#parts.answered(call, connectionId, mayRead);
  }

  async #queue(call: Call<ResumeRequest>): Promise<Accepted> {
    const { principal, request } = call;
    call.ran = true;
    const decider = await this.#decider(principal, request);
    const paused = await this.#paused(decider, request.runId);
    const requestId = request.requestId ?? this.#parts.newId();
    const accept = () => this.#sendResume(request, decider, paused.agent, requestId);
    // Back-office approvers deciding for owners are not metered as the owner's runs.
    if (request.channel === 'approvals' || decider.forOwner) return accept();
    return this.#parts.admitQueued(principal, request.runId, requestId, accept);
  }

  async #sendResume(
    request: ResumeRequest,
    decider: Decider,
    agent: string,
    requestId: string,
  ): Promise<Accepted> {
    const { sessionId, runId } = request;
    const { records, now } = this.#parts;
    // Conditional: the paused run's record (and its seq) is kept; only a run without one gets one.
    await records.queued({ runId, sessionId, agent, ...bindingOf(decider.session) });
    await this.#parts.send({
      kind: 'resume',
      requestId,
      principal: decider.actor,
      agent,
      sessionId,
      runId,
      decisions: [...request.decisions],
      ...(request.connectionId ? { connectionId: request.connectionId } : {}),
      enqueuedAt: now(),
    });
    return { requestId, sessionId, runId };
  }

  async #resumeHere(call: Call<ResumeRequest>): Promise<Reply> {
    const { principal, sessionId, request, timeoutMs } = call;
    call.ran = true;
    const turns = this.#parts.turns();
    const decider = await this.#decider(principal, request);
    const { runId } = request;
    const paused = await this.#paused(decider, runId);
    const ref = { runId, sessionId, agent: paused.agent, ...bindingOf(decider.session) };
    // An approver who lost the race is told so; an owner's retry gets the winner's outcome.
    const refused = decider.forOwner ? 'conflict' : 'winner';
    const turn = () =>
      this.#parts
        .recorded(ref, { timeoutMs, resume: true, refused }, (signal, sent) =>
          turns.resume(sessionId, runId, request.decisions, {
            principal: decider.actor,
            signal,
            sent,
          }),
        )
        .catch(async (err: unknown) => {
          // The winner ended and deleted the run between our read and our claim.
          if (err instanceof PausedRunNotFound) await this.#decidedElsewhere(decider, runId);
          throw err;
        });
    if (request.channel === 'approvals' || decider.forOwner) return turn();
    return this.#parts.admitHere(principal, timeoutMs, turn);
  }

  /** The owner deciding, or (approvals channels only) a configured approver deciding for them. */
  async #decider(principal: string, request: ResumeRequest): Promise<Decider> {
    const { policy } = this.#parts;
    if (request.channel) {
      const { owner, session } = await policy.decider(principal, request.sessionId);
      return { actor: owner, session, forOwner: owner !== principal };
    }
    const session = await policy.owned(principal, request.sessionId);
    return { actor: principal, session, forOwner: false };
  }

  /** The paused run, if it is of the session's current life (not one kept from before a clear). */
  async #paused(decider: Decider, runId: string) {
    const { session } = decider;
    const paused = await this.#parts.deps.pausedRuns.get(session.id, runId);
    if (paused && boundTo(paused, session)) return paused;
    await this.#decidedElsewhere(decider, runId);
    throw new PausedRunNotFound(session.id, runId);
  }

  /** For an approver: a run gone because another decision resumed it is a conflict, not missing. */
  async #decidedElsewhere(decider: Decider, runId: string): Promise<void> {
    if (!decider.forOwner) return;
    const { session } = decider;
    const record = await this.#parts.records.get(session.id, runId);
    if (record && boundTo(record, session) && record.status !== 'paused') {
      throw new RunAlreadyDecided(session.id, runId, record.status);
    }
  }
}
