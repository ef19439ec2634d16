import { randomUUID } from 'node:crypto';
import type { Agent } from './agent.js';
import { type ClearSessionOptions, clearSession } from './clear-session.js';
import {
  AgentKernelError,
  AgentNotFound,
  DuplicateAgent,
  InvalidRequest,
  PauseUnsupported,
  toErrorInfo,
} from './errors.js';
import type { StreamEvent } from './events.js';
import type { PostHook, PreHook } from './hooks.js';
import type { RunJournalStore } from './journal.js';
import { lazyStream } from './lazy-stream.js';
import type { Module } from './module.js';
import { type Reply, type Request, RequestsSchema, type RunInput } from './requests.js';
import { DecisionsSchema, prepareResume } from './resume.js';
import type { RunOptions } from './run-options.js';
import type { Decision } from './runner.js';
import { type SessionData, SessionIdSchema, type SessionStore } from './session.js';
import { InProcessSessionLock, type SessionLock } from './session-lock.js';
import { DEFAULT_RESUME_CLAIM_MS, PausedRunNotFound, type PausedRunStore } from './stores.js';
import { noopTracer, type Tracer } from './tracer.js';
import { normaliseRunError, type PreparedTurn, prepareTurn, type TurnSetup } from './turn.js';
import { TurnAbort } from './turn-abort.js';
import {
  drainTurn,
  driveTurn,
  outgoingError,
  type TurnEngine,
  type TurnOutcome,
} from './turn-engine.js';

export interface RuntimeOptions {
  /** Where sessions live (lib/stores: in-memory or DynamoDB). */
  sessions: SessionStore;
  /** Where paused runs wait for decisions; without it a run that pauses fails. */
  pausedRuns?: PausedRunStore;
  /** How long a paused run waits for decisions (default 24 hours). */
  pausedRunTtlMs?: number;
  /**
   * How long a resume's claim on a paused run holds (default 16 minutes): if the process that
   * holds it dies (a Lambda timeout, a crash: no release runs), the next resume takes it over
   * once it lapses. It must exceed the longest resume (15 minutes on Lambda): a claim that lapsed
   * while its holder still runs would let a second resume run the same tool calls again. The
   * session lease does not prevent that: it serialises turns only while its holder renews it, and
   * an in-process lock serialises nothing across instances.
   */
  resumeClaimMs?: number;
  /** Serialises turns of one session; in-process by default. */
  lock?: SessionLock;
  tracer?: Tracer;
  /** System hooks, run after each agent's own pre-hooks and post-hooks. */
  preHooks?: readonly PreHook[];
  postHooks?: readonly PostHook[];
  agents?: readonly Agent[];
  modules?: readonly Module<unknown>[];
  /**
   * Where runs record their model responses and tool calls (`ToolContext.journal`): a retried,
   * redelivered or resumed run replays them, and tool calls run at most once.
   */
  journal?: RunJournalStore;
  /** Applied to every error message that leaves the runtime (run-error events, thrown errors). */
  redact?: (text: string) => string;
  newId?: () => string;
  now?: () => number;
}

export interface RunCallOptions {
  runId?: string;
  principal?: string;
  /**
   * The incarnation the session gets if this turn creates it (default: a fresh one), so a caller
   * can stamp what it writes for the run before the turn (lib/core/ownership.ts).
   */
  incarnation?: string;
  /** Merged over the agent's declared and factory options, for this run only. */
  runOptions?: RunOptions;
  signal?: AbortSignal;
  /**
   * Load what earlier attempts of this run recorded in the journal and replay it. Default: true
   * when the caller passes a `runId` (it may be a retry), false for a runtime-generated one. A
   * resume always replays.
   */
  replay?: boolean;
  /**
   * Called with the session as the turn loaded it (under the session's lease), before the runner
   * starts: a caller that needs it (the job runner's `turnsBefore`) reads no second copy.
   */
  onSession?: (session: SessionData | undefined) => void;
}

export type ResumeCallOptions = Omit<RunCallOptions, 'runId' | 'replay' | 'incarnation'>;

const DAY_MS = 24 * 60 * 60 * 1000;

interface ResumeSetup {
  setup: TurnSetup;
  prepare: () => Promise<PreparedTurn>;
}

/**
 * Runs registered agents turn by turn: load session → pre-hooks → runner → post-hooks → store
 * session (only on success, version-checked) → reply. Turns of one session run one at a time.
 * A run that needs decisions pauses; `resume` continues it exactly once.
 */
export class Runtime {
  readonly #agents = new Map<string, Agent>();
  readonly #engine: TurnEngine;
  readonly #newId: () => string;

  constructor(options: RuntimeOptions) {
    this.#newId = options.newId ?? randomUUID;
    const deps = {
      sessions: options.sessions,
      preHooks: options.preHooks ?? [],
      postHooks: options.postHooks ?? [],
      now: options.now ?? Date.now,
    };
    this.#engine = {
      deps,
      pause: options.pausedRuns
        ? {
            ...deps,
            pausedRuns: options.pausedRuns,
            pausedRunTtlMs: options.pausedRunTtlMs ?? DAY_MS,
            resumeClaimMs: options.resumeClaimMs ?? DEFAULT_RESUME_CLAIM_MS,
          }
        : undefined,
      lock: options.lock ?? new InProcessSessionLock(),
      tracer: options.tracer ?? noopTracer,
      journal: options.journal,
      redact: options.redact,
    };
    for (const agent of options.agents ?? []) this.register(agent);
    for (const module of options.modules ?? []) this.use(module);
  }

  register(agent: Agent): this {
    if (this.#agents.has(agent.name)) throw new DuplicateAgent(agent.name);
    this.#agents.set(agent.name, agent);
    return this;
  }

  use(module: Module<unknown>): this {
    // All or nothing: a clash must not leave half a module registered.
    const clash = module.agents.find((agent) => this.#agents.has(agent.name));
    if (clash) throw new DuplicateAgent(clash.name);
    for (const agent of module.agents) this.register(agent);
    return this;
  }

  agent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (!agent) throw new AgentNotFound(name);
    return agent;
  }

  get agents(): readonly Agent[] {
    return [...this.#agents.values()];
  }

  get sessions(): SessionStore {
    return this.#engine.deps.sessions;
  }

  get pausedRuns(): PausedRunStore | undefined {
    return this.#engine.pause?.pausedRuns;
  }

  /** Forgets a session's conversation and paused runs (owner only; see `clear-session.ts`). */
  async clearSession(
    sessionId: string,
    options: ClearSessionOptions = {},
  ): Promise<{ sessionId: string; cleared: boolean }> {
    try {
      checkSessionId(sessionId);
      return await clearSession(this.#engine, sessionId, options);
    } catch (err) {
      throw this.#outgoing(err);
    }
  }

  /** One turn, answered with the reply. Errors are thrown as AgentKernelError subclasses. */
  async run(
    agentName: string,
    sessionId: string,
    input: RunInput,
    options: RunCallOptions = {},
  ): Promise<Reply> {
    let setup: TurnSetup;
    try {
      // Drained: nothing sees this turn's events (TurnSetup.drained).
      setup = this.#setup(agentName, sessionId, options, input, true);
    } catch (err) {
      throw this.#outgoing(err);
    }
    const outcome: TurnOutcome = {};
    const deps = this.#engine.deps;
    return drainTurn(
      driveTurn(this.#engine, setup, () => prepareTurn(deps, setup), outcome),
      outcome,
    );
  }

  /**
   * One turn as a stream of events. Never throws for a failed turn: it ends with `run-error`
   * (after closing any open boundary) instead of `run-finished` or `run-paused`.
   */
  stream(
    agentName: string,
    sessionId: string,
    input: RunInput,
    options: RunCallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    // Set up on the first `next()`, as a generator body would; then the driver's own generator.
    return lazyStream(() => {
      const runId = options.runId ?? this.#newId();
      let setup: TurnSetup;
      try {
        const replay = options.replay ?? options.runId !== undefined;
        setup = this.#setup(agentName, sessionId, { ...options, runId, replay }, input);
      } catch (err) {
        return once({ type: 'run-error', runId, ...this.#errorInfo(err) });
      }
      return driveTurn(this.#engine, setup, () => prepareTurn(this.#engine.deps, setup));
    });
  }

  /** Continues a paused run with a decision for each interruption; answered like `run`. */
  async resume(
    sessionId: string,
    runId: string,
    decisions: readonly Decision[],
    options: ResumeCallOptions = {},
  ): Promise<Reply> {
    let resumed: ResumeSetup;
    try {
      resumed = await this.#resumeSetup(sessionId, runId, decisions, options);
    } catch (err) {
      throw this.#outgoing(err);
    }
    const outcome: TurnOutcome = {};
    return drainTurn(driveTurn(this.#engine, resumed.setup, resumed.prepare, outcome), outcome);
  }

  /** `resume` as a stream of events, shaped like the stream of an ordinary turn. */
  async *resumeStream(
    sessionId: string,
    runId: string,
    decisions: readonly Decision[],
    options: ResumeCallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    let resumed: ResumeSetup;
    try {
      resumed = await this.#resumeSetup(sessionId, runId, decisions, options);
    } catch (err) {
      yield { type: 'run-error', runId: String(runId), ...this.#errorInfo(err) };
      return;
    }
    yield* driveTurn(this.#engine, resumed.setup, resumed.prepare);
  }

  async #resumeSetup(
    sessionId: string,
    runId: string,
    decisions: readonly Decision[],
    options: ResumeCallOptions,
  ): Promise<ResumeSetup> {
    const pause = this.#engine.pause;
    if (!pause) throw new PauseUnsupported('This runtime has no paused-run store.');
    const parsed = DecisionsSchema.safeParse(decisions);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidRequest(
        `Invalid decisions at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    checkSessionId(sessionId);
    const run = await pause.pausedRuns.get(sessionId, runId);
    if (!run) throw new PausedRunNotFound(sessionId, runId);
    // A resume always replays: the run's earlier attempts recorded what they did.
    const setup = this.#setup(run.agent, sessionId, { ...options, runId, replay: true });
    const { runner } = setup.agent;
    if (!runner.supportsPause || !runner.resumeStream) {
      throw new PauseUnsupported(`The ${runner.name} runner cannot resume paused runs.`);
    }
    return { setup, prepare: () => prepareResume(pause, setup, run, parsed.data) };
  }

  #errorInfo(err: unknown): { code: string; message: string } {
    const info = toErrorInfo(err);
    const redact = this.#engine.redact;
    return redact ? { ...info, message: redact(info.message) } : info;
  }

  /** A failure before the turn starts, as it leaves the runtime (typed, redacted). */
  #outgoing(err: unknown): unknown {
    return err instanceof AgentKernelError ? outgoingError(this.#engine, err) : err;
  }

  #setup(
    agentName: string,
    sessionId: string,
    options: RunCallOptions,
    input?: RunInput,
    drained = false,
  ): TurnSetup {
    const agent = this.agent(agentName);
    checkSessionId(sessionId);
    let requests: Request[] = [];
    if (typeof input === 'string' && input.length > 0) {
      // The common case, valid by construction: skips a schema walk on the hot path.
      requests = [{ type: 'text', text: input }];
    } else if (input !== undefined) {
      const parsed = RequestsSchema.safeParse(toRequests(input));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InvalidRequest(
          `Invalid input at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
        );
      }
      requests = parsed.data;
    }
    if (options.signal?.aborted) {
      throw normaliseRunError(options.signal.reason, agent.name, options.signal);
    }
    // One plain literal (absent options are undefined): conditional spreads and a getter here
    // cost more than the rest of the setup.
    return {
      agent,
      runId: options.runId ?? this.#newId(),
      sessionId,
      requests,
      principal: options.principal,
      // Minted by newSession only when the turn creates the session: no UUID per run.
      incarnation: options.incarnation,
      runOptions: options.runOptions,
      replay: options.replay ?? options.runId !== undefined,
      onSession: options.onSession,
      abort: new TurnAbort(options.signal),
      callerSignal: options.signal,
      drained,
    };
  }
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function checkSessionId(sessionId: string): void {
  // A plain regex first; the schema only words the error.
  if (typeof sessionId === 'string' && SESSION_ID.test(sessionId)) return;
  const id = SessionIdSchema.safeParse(sessionId);
  if (!id.success) throw new InvalidRequest(id.error.issues[0]?.message ?? 'invalid sessionId');
}

async function* once(event: StreamEvent): AsyncGenerator<StreamEvent, void, undefined> {
  yield event;
}

function toRequests(input: RunInput): unknown {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  if (Array.isArray(input)) return input;
  return [input as Request];
}
