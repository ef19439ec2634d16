import { randomUUID } from 'node:crypto';
import { AgentKernelError, AgentNotFound } from '../core/errors.js';
import { bindingOf, boundTo } from '../core/ownership.js';
import type { Reply } from '../core/requests.js';
import type { RunInputWire, RunJob } from '../transport/protocol.js';
import { NotFound } from './errors.js';
import { leaseIdOf } from './fair-use.js';
import { makeIdempotent } from './idempotent.js';
import { processIdKey, ServerIds } from './ids.js';
import { asJson } from './jobs/run-log.js';
import { runRecorded, type SyncRunDeps } from './jobs/sync-run.js';
import { AccessPolicy, type SessionLife } from './policy.js';
import type { FrontDoorDeps, JobQueue, SentSeqs, SubscriptionFormat, TurnRunner } from './ports.js';
import {
  type Accepted,
  type Call,
  type FrontParts,
  type ResumeRequest,
  Resumes,
} from './resume.js';
import { CLAIM_MARGIN_MS, MAX_TURN_MS, publicRun, RunRecords, type RunRef } from './run-records.js';
import { checkId } from './validation.js';

export type { Accepted, ResumeRequest } from './resume.js';

/** A run as every front asks for it; `principal` is what the edge read, checked here. */
export interface RunRequest {
  principal: unknown;
  /** The client's id (WebSocket requestId, Idempotency-Key, invoke requestId): makes it idempotent. */
  requestId?: string;
  agent: string;
  sessionId?: string;
  input: RunInputWire;
  /** The WebSocket connection that asked: subscribed once the session is the caller's. */
  connectionId?: string;
}

/**
 * The application service every front calls (lib/aws/ws-message, http, invoke, approvals): submit
 * or run a turn, submit or run a resume, subscribe, read a session or a run, list agents. It owns
 * the authorization policy, the run job, the run record and request idempotency, so a front is
 * only parse → front door → encode.
 */
export class FrontDoor {
  readonly policy: AccessPolicy;
  readonly #deps: FrontDoorDeps;
  readonly #records: RunRecords;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #ids: ServerIds;
  readonly #submitRun: (call: Call<RunRequest>) => Promise<Accepted>;
  readonly #runNow: (call: Call<RunRequest>) => Promise<Reply>;
  readonly #resumes: Resumes;

  constructor(deps: FrontDoorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#newId = deps.newId ?? randomUUID;
    this.#ids = new ServerIds(deps.idKey ?? processIdKey());
    const { approvers, sessionIndex: index } = deps;
    this.policy = new AccessPolicy(deps.sessions, { approvers, index, now: this.#now });
    this.#records = new RunRecords(deps.runs, this.#now);
    // One key space for every front: (principal, session, requestId), the job's dedup id too.
    const idempotent = <R extends { requestId?: string }, T>(
      kind: string,
      fn: (call: Call<R>) => Promise<T>,
      payload: (request: R) => unknown,
    ) =>
      makeIdempotent(deps.idempotency, fn, {
        key: (call) =>
          call.request.requestId
            ? [call.principal, call.sessionId, call.request.requestId]
            : undefined,
        payload: (call) => ({ kind, ...(payload(call.request) as object) }),
        describe: (call) => `Request id "${call.request.requestId}"`,
        // A turn run here holds its key while it may still run (at most a Lambda's 15 min).
        inProgressMs: (call) =>
          kind === 'run' || kind === 'resume'
            ? (call.timeoutMs ?? MAX_TURN_MS) + CLAIM_MARGIN_MS
            : undefined,
      });
    const run = (r: RunRequest) => ({ agent: r.agent, input: r.input });
    this.#submitRun = idempotent('queued-run', (call) => this.#queueRun(call), run);
    this.#runNow = idempotent('run', (call) => this.#runHere(call), run);
    this.#resumes = new Resumes(this.#parts(idempotent));
  }

  /** Queues a turn (WebSocket, async HTTP): `accepted` once the session is the caller's. */
  async submitRun(request: RunRequest): Promise<Accepted> {
    const call = await this.#runCall(request);
    const accepted = await this.#submitRun(call);
    await this.#answered(call, request.connectionId);
    return accepted;
  }

  /** Runs a turn here (sync HTTP, invoke), within `timeoutMs` when given. */
  async runNow(request: RunRequest, options: { timeoutMs?: number } = {}): Promise<Reply> {
    const call = { ...(await this.#runCall(request)), ...options };
    const reply = await this.#runNow(call);
    await this.#answered(call);
    return reply;
  }

  /** Queues the resume of a paused run (WebSocket, approvals queue). */
  submitResume(request: ResumeRequest): Promise<Accepted> {
    return this.#resumes.submit(request);
  }

  /** Resumes a paused run here (HTTP decisions, invoke). */
  resumeNow(request: ResumeRequest, options: { timeoutMs?: number } = {}): Promise<Reply> {
    return this.#resumes.now(request, options);
  }

  async subscribe(
    principal: unknown,
    connectionId: string,
    sessionId: string,
    format?: SubscriptionFormat,
  ): Promise<void> {
    const who = this.policy.principal(principal);
    await this.policy.owned(who, sessionId);
    await this.#connections().subscribe(connectionId, sessionId, format);
  }

  async unsubscribe(principal: unknown, connectionId: string, sessionId: string): Promise<void> {
    const who = this.policy.principal(principal);
    await this.policy.owned(who, sessionId);
    await this.#connections().unsubscribe(connectionId, sessionId);
  }

  async readSession(principal: unknown, sessionId: string) {
    const data = await this.policy.owned(this.policy.principal(principal), sessionId);
    const { id, agent, turns, createdAt, updatedAt, paused } = data;
    return { sessionId: id, agent, turns, createdAt, updatedAt, paused: paused ?? [] };
  }

  /**
   * Queues forgetting the caller's session behind the turns already queued for it (WebSocket):
   * `accepted` once it is queued; the worker clears it in the session's order.
   */
  async submitClear(request: { principal: unknown; requestId: string; sessionId: string }) {
    const who = this.policy.principal(request.principal);
    checkId('requestId', request.requestId);
    checkId('sessionId', request.sessionId);
    const session = await this.policy.owned(who, request.sessionId);
    const { requestId, sessionId } = request;
    const runId = await this.#ids.runId(who, sessionId, session.incarnation, requestId);
    const job = { kind: 'clear' as const, requestId, principal: who, sessionId, runId };
    await this.#send({ ...job, enqueuedAt: this.#now() });
    return { requestId, sessionId, runId };
  }

  /** Forgets the caller's session (its conversation and paused runs): the owner only. */
  async clearSession(principal: unknown, sessionId: string) {
    const who = this.policy.principal(principal);
    checkId('sessionId', sessionId);
    await this.policy.owned(who, sessionId);
    if (!this.#deps.turns) {
      throw new AgentKernelError('internal-error', 'This front runs no turns: it cannot clear.');
    }
    return this.#deps.turns.clearSession(sessionId, { principal: who });
  }

  async readRun(principal: unknown, sessionId: string, runId: string) {
    const who = this.policy.principal(principal);
    checkId('runId', runId);
    const session = await this.policy.owned(who, sessionId);
    // A record left running by a dead attempt is repaired from the session here.
    const record = await this.#records.read(sessionId, runId, {
      session: async () => session,
      pausedRun: () => this.#deps.pausedRuns.get(sessionId, runId),
    });
    // A run of an earlier life of the id (before a clear or an expiry) is nobody's now.
    if (!record || !boundTo(record, session)) {
      throw new NotFound(`Run "${runId}" of session "${sessionId}"`);
    }
    return publicRun(record);
  }

  listAgents(principal: unknown): { agents: unknown[] } {
    this.policy.principal(principal);
    return { agents: this.#deps.agents.cards() };
  }

  // ------------------------------------------------------------------ use cases behind the keys

  async #runCall(request: RunRequest): Promise<Call<RunRequest>> {
    const principal = this.policy.principal(request.principal);
    if (request.requestId !== undefined) checkId('requestId', request.requestId);
    if (request.sessionId !== undefined) checkId('sessionId', request.sessionId);
    if (this.#deps.agents.has(request.agent) === false) throw new AgentNotFound(request.agent);
    // No session named: a retry of the same request must land in the same new session.
    const sessionId =
      request.sessionId ??
      (request.requestId ? await this.#ids.sessionId(principal, request.requestId) : this.#newId());
    return { principal, sessionId, request };
  }

  async #queueRun(call: Call<RunRequest>): Promise<Accepted> {
    const { principal, sessionId, request } = call;
    call.ran = true;
    const requestId = request.requestId ?? this.#newId();
    // The run id (and so the fair-use lease) needs the session's life before it is claimed:
    // the one it has, or the one it gets if this claim creates it. Another's: not-found here.
    const life = await this.policy.life(principal, sessionId);
    const runId = await this.#ids.runId(principal, sessionId, life.incarnation, requestId);
    return this.#admitQueued(principal, runId, requestId, () =>
      this.#acceptRun(principal, life, request, requestId, runId),
    );
  }

  async #acceptRun(
    principal: string,
    life: SessionLife,
    request: RunRequest,
    requestId: string,
    runId: string,
  ): Promise<Accepted> {
    const { sessionId } = life;
    const session = await this.policy.claim(principal, sessionId, life);
    await this.#records.queued({
      runId,
      sessionId,
      agent: request.agent,
      input: asJson(request.input),
      ...bindingOf(session),
    });
    await this.#send({
      kind: 'run',
      requestId,
      principal,
      agent: request.agent,
      sessionId,
      runId,
      input: request.input,
      ...(request.connectionId ? { connectionId: request.connectionId } : {}),
      enqueuedAt: this.#now(),
    });
    return { requestId, sessionId, runId };
  }

  async #runHere(call: Call<RunRequest>): Promise<Reply> {
    const { principal, sessionId, request, timeoutMs } = call;
    call.ran = true;
    const turns = this.#turns();
    return this.#admitHere(principal, timeoutMs, async () => {
      const session = await this.policy.claim(principal, sessionId);
      const { incarnation } = session;
      const runId = request.requestId
        ? await this.#ids.runId(principal, sessionId, incarnation, request.requestId)
        : this.#newId();
      const ref = {
        runId,
        sessionId,
        agent: request.agent,
        input: asJson(request.input),
        ...bindingOf(session),
      };
      // A session cleared meanwhile is created again in the incarnation the record carries.
      return this.#recorded(ref, { timeoutMs }, (signal, sent) =>
        turns.run(request.agent, sessionId, request.input, {
          runId,
          principal,
          signal,
          sent,
          ...(incarnation ? { incarnation } : {}),
        }),
      );
    });
  }

  /** Fair use: a queued run counts in flight from here until the worker reports its end. */
  #admitQueued<T>(principal: string, runId: string, requestId: string, accept: () => Promise<T>) {
    const fair = this.#deps.fairUse;
    return fair ? fair.queued(principal, leaseIdOf(runId, requestId), accept) : accept();
  }

  /** Fair use: a turn run here is admitted, metered and released around it. */
  #admitHere(principal: string, timeoutMs: number | undefined, turn: () => Promise<Reply>) {
    const fair = this.#deps.fairUse;
    return fair ? fair.here(principal, randomUUID(), timeoutMs, turn) : turn();
  }

  /** The caller's own usage and limits (`GET /usage`): its cost attribution. */
  async usage(principal: unknown) {
    const who = this.policy.principal(principal);
    if (!this.#deps.fairUse) throw new NotFound('Route GET /usage (fair use is off here)');
    return this.#deps.fairUse.usage(who);
  }

  /** What the resume use cases (lib/app/resume.ts) share with the rest of the front door. */
  #parts(idempotent: FrontParts['idempotent']): FrontParts {
    return {
      deps: this.#deps,
      policy: this.policy,
      records: this.#records,
      now: this.#now,
      newId: this.#newId,
      idempotent,
      admitQueued: (principal, runId, requestId, accept) =>
        this.#admitQueued(principal, runId, requestId, accept),
      admitHere: (principal, timeoutMs, turn) => this.#admitHere(principal, timeoutMs, turn),
      recorded: (ref, options, turn) => this.#recorded(ref, options, turn),
      send: (job) => this.#send(job),
      turns: () => this.#turns(),
      answered: (call, connectionId, mayRead) => this.#answered(call, connectionId, mayRead),
    };
  }

  /** A sync turn between its run records (lib/app/jobs/sync-run.ts). */
  #recorded(
    ref: RunRef,
    options: { timeoutMs: number | undefined; resume?: boolean; refused?: 'winner' | 'conflict' },
    turn: (signal: AbortSignal | undefined, sent: SentSeqs) => Promise<Reply>,
  ): Promise<Reply> {
    const { sessions, pausedRuns, redact } = this.#deps;
    const deps: SyncRunDeps = {
      records: this.#records,
      session: async (sessionId) => (await sessions.load(sessionId))?.data,
      stillPaused: async (sessionId, runId) =>
        (await pausedRuns.get(sessionId, runId))?.status === 'pending',
      redact,
    };
    return runRecorded(deps, ref, options, turn);
  }

  /**
   * After an answer: the session is the caller's when the request ran here (the policy claimed or
   * checked it). A replayed answer (idempotency) is given only while the session is still the
   * caller's: after a clear or expiry and another's claim it is `not-found`, as the session is.
   * Then the requester's connection is subscribed. `mayRead` replaces the owner check where an
   * approver may have asked (a decision for another's run).
   */
  async #answered(
    call: Call<unknown>,
    connectionId?: string,
    mayRead?: () => Promise<unknown>,
  ): Promise<void> {
    if (!call.ran) await (mayRead ? mayRead() : this.policy.owned(call.principal, call.sessionId));
    if (connectionId) await this.#connections().subscribe(connectionId, call.sessionId);
  }

  #send(job: RunJob): Promise<void> {
    return this.#queue().send(job);
  }

  #queue(): JobQueue {
    if (!this.#deps.queue) throw new AgentKernelError('internal-error', 'No run queue here.');
    return this.#deps.queue;
  }

  #turns(): TurnRunner {
    if (!this.#deps.turns) throw new AgentKernelError('internal-error', 'No runtime here.');
    return this.#deps.turns;
  }

  #connections() {
    if (!this.#deps.connections)
      throw new AgentKernelError('internal-error', 'No connections here.');
    return this.#deps.connections;
  }
}
