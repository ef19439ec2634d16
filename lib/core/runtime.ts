import { randomUUID } from 'node:crypto';
import type { Agent } from './agent.js';
import { BoundaryTracker } from './boundaries.js';
import {
  AgentNotFound,
  DuplicateAgent,
  InvalidRequest,
  RunnerError,
  toErrorInfo,
} from './errors.js';
import type { StreamEvent } from './events.js';
import type { PostHook, PreHook } from './hooks.js';
import type { Module } from './module.js';
import {
  type AgentReply,
  type Reply,
  type Request,
  RequestsSchema,
  type RunInput,
} from './requests.js';
import type { RunOptions } from './run-options.js';
import type { RunnerResult, RunnerStream } from './runner.js';
import { SessionIdSchema, type SessionStore } from './session.js';
import { InProcessSessionLock, type Release, type SessionLock } from './session-lock.js';
import { runWithToolContext } from './tool-context.js';
import { noopTracer, type Tracer } from './tracer.js';
import {
  applyStreamHooks,
  completeTurn,
  normaliseRunError,
  type PreparedTurn,
  prepareTurn,
  type TurnDeps,
  type TurnSetup,
} from './turn.js';

export interface RuntimeOptions {
  /** Where sessions live (lib/stores: in-memory or DynamoDB). */
  sessions: SessionStore;
  /** Serialises turns of one session; in-process by default. */
  lock?: SessionLock;
  tracer?: Tracer;
  /** System hooks, run after each agent's own pre-hooks and post-hooks. */
  preHooks?: readonly PreHook[];
  postHooks?: readonly PostHook[];
  agents?: readonly Agent<any>[];
  modules?: readonly Module<any>[];
  newId?: () => string;
  now?: () => number;
}

export interface RunCallOptions {
  runId?: string;
  principal?: string;
  /** Merged over the agent's declared and factory options, for this run only. */
  runOptions?: RunOptions;
  signal?: AbortSignal;
}

/**
 * Runs registered agents turn by turn: load session → pre-hooks → runner → post-hooks → store
 * session (only on success, version-checked) → reply. Turns of one session run one at a time.
 */
export class Runtime {
  readonly #agents = new Map<string, Agent<any>>();
  readonly #lock: SessionLock;
  readonly #tracer: Tracer;
  readonly #deps: TurnDeps;
  readonly #newId: () => string;

  constructor(options: RuntimeOptions) {
    this.#lock = options.lock ?? new InProcessSessionLock();
    this.#tracer = options.tracer ?? noopTracer;
    this.#newId = options.newId ?? randomUUID;
    this.#deps = {
      sessions: options.sessions,
      preHooks: options.preHooks ?? [],
      postHooks: options.postHooks ?? [],
      now: options.now ?? Date.now,
    };
    for (const agent of options.agents ?? []) this.register(agent);
    for (const module of options.modules ?? []) this.use(module);
  }

  register(agent: Agent<any>): this {
    if (this.#agents.has(agent.name)) throw new DuplicateAgent(agent.name);
    this.#agents.set(agent.name, agent);
    return this;
  }

  use(module: Module<any>): this {
    // All or nothing: a clash must not leave half a module registered.
    const clash = module.agents.find((agent) => this.#agents.has(agent.name));
    if (clash) throw new DuplicateAgent(clash.name);
    for (const agent of module.agents) this.register(agent);
    return this;
  }

  agent(name: string): Agent<any> {
    const agent = this.#agents.get(name);
    if (!agent) throw new AgentNotFound(name);
    return agent;
  }

  get agents(): readonly Agent<any>[] {
    return [...this.#agents.values()];
  }

  get sessions(): SessionStore {
    return this.#deps.sessions;
  }

  /** One turn, answered with the reply. Errors are thrown as AgentKernelError subclasses. */
  async run(
    agentName: string,
    sessionId: string,
    input: RunInput,
    options: RunCallOptions = {},
  ): Promise<Reply> {
    const setup = this.#setup(agentName, sessionId, input, options);
    const span = this.#tracer.startSpan('run', { agent: agentName, sessionId, runId: setup.runId });
    let release: Release | undefined;
    try {
      release = await this.#lock.acquire(sessionId, options.signal);
      const turn = await prepareTurn(this.#deps, setup);
      if (turn.halt) return haltReply(turn);
      const { runner } = setup.agent;
      const result = await runWithToolContext(turn.toolContext, () => runner.run(turn.input));
      return await this.#finish(turn, result);
    } catch (err) {
      const error = normaliseRunError(err, agentName, setup.signal);
      span.recordError(error);
      throw error;
    } finally {
      span.end();
      await release?.();
    }
  }

  /**
   * One turn as a stream of events. Never throws for a failed turn: it ends with `run-error`
   * (after closing any open boundary) instead of `run-finished`.
   */
  async *stream(
    agentName: string,
    sessionId: string,
    input: RunInput,
    options: RunCallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const runId = options.runId ?? this.#newId();
    let setup: TurnSetup;
    try {
      setup = this.#setup(agentName, sessionId, input, { ...options, runId });
    } catch (err) {
      yield { type: 'run-error', runId, ...toErrorInfo(err) };
      return;
    }
    const span = this.#tracer.startSpan('run', { agent: agentName, sessionId, runId });
    const boundaries = new BoundaryTracker();
    let release: Release | undefined;
    let runnerStream: RunnerStream | undefined;
    let ended = false;
    try {
      release = await this.#lock.acquire(sessionId, options.signal);
      yield { type: 'run-started', runId, sessionId, agent: agentName };
      const turn = await prepareTurn(this.#deps, setup);
      if (turn.halt) {
        yield* haltEvents(runId, turn.halt.text);
        yield { type: 'run-finished', runId, reply: haltReply(turn) };
        ended = true;
        return;
      }
      const hooks = [...setup.agent.postHooks, ...this.#deps.postHooks];
      const stream = runWithToolContext(turn.toolContext, () =>
        setup.agent.runner.stream(turn.input),
      );
      runnerStream = stream;
      let result: RunnerResult;
      for (;;) {
        // Each step runs inside the tool context so tools the framework calls can see it.
        const step = await runWithToolContext(turn.toolContext, () => stream.next());
        if (step.done) {
          result = step.value;
          break;
        }
        const events =
          hooks.length === 0 ? [step.value] : await applyStreamHooks(hooks, step.value, turn.info);
        for (const event of events) {
          boundaries.observe(event);
          yield event;
        }
      }
      runnerStream = undefined;
      const reply = await this.#finish(turn, result);
      // A runner that forgot to close something still gives clients a well-formed stream.
      yield* boundaries.closeAll();
      ended = true;
      yield { type: 'run-finished', runId, reply };
    } catch (err) {
      const error = normaliseRunError(err, agentName, setup.signal);
      span.recordError(error);
      setup.controller.abort(error);
      await closeQuietly(runnerStream);
      runnerStream = undefined;
      yield* boundaries.closeAll();
      ended = true;
      yield { type: 'run-error', runId, code: error.code, message: error.message };
    } finally {
      if (!ended) {
        // The consumer stopped early: stop the runner, store nothing.
        setup.controller.abort(
          new RunnerError('The stream consumer stopped.', { code: 'run-aborted' }),
        );
        await closeQuietly(runnerStream);
      }
      span.end();
      await release?.();
    }
  }

  async #finish(turn: PreparedTurn, result: RunnerResult): Promise<AgentReply> {
    if (result.status === 'paused') {
      // Pause and resume arrive with the paused-run store; until then a pause is an error.
      throw new RunnerError(
        `Agent "${turn.setup.agent.name}" paused for approval, but this runtime has no paused-run store.`,
        { code: 'pause-unsupported' },
      );
    }
    return completeTurn(this.#deps, turn, result);
  }

  #setup(
    agentName: string,
    sessionId: string,
    input: RunInput,
    options: RunCallOptions,
  ): TurnSetup {
    const agent = this.agent(agentName);
    const id = SessionIdSchema.safeParse(sessionId);
    if (!id.success) throw new InvalidRequest(id.error.issues[0]?.message ?? 'invalid sessionId');
    const requests = RequestsSchema.safeParse(toRequests(input));
    if (!requests.success) {
      const issue = requests.error.issues[0];
      throw new InvalidRequest(
        `Invalid input at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    if (options.signal?.aborted) {
      throw normaliseRunError(options.signal.reason, agent.name, options.signal);
    }
    const controller = new AbortController();
    // AbortSignal.any adds no listener to the caller's signal, which may outlive many runs.
    const signal = options.signal
      ? AbortSignal.any([controller.signal, options.signal])
      : controller.signal;
    return {
      agent,
      runId: options.runId ?? this.#newId(),
      sessionId,
      requests: requests.data,
      principal: options.principal,
      runOptions: options.runOptions,
      controller,
      signal,
    };
  }
}

function toRequests(input: RunInput): unknown {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  if (Array.isArray(input)) return input;
  return [input as Request];
}

async function closeQuietly(stream: RunnerStream | undefined): Promise<void> {
  if (!stream) return;
  try {
    await stream.return(undefined as never);
  } catch {
    // The runner failed while stopping; the run's own error is what matters.
  }
}

function haltReply(turn: PreparedTurn): AgentReply {
  const { runId, sessionId, agent } = turn.setup;
  const halt = turn.halt ?? { text: '' };
  return {
    status: 'completed',
    runId,
    sessionId,
    agent: agent.name,
    text: halt.text,
    ...(halt.output === undefined ? {} : { output: halt.output }),
  };
}

function* haltEvents(runId: string, text: string): Generator<StreamEvent> {
  if (!text) return;
  const messageId = `halt-${runId}`;
  yield { type: 'message-start', runId, messageId };
  yield { type: 'text-delta', runId, messageId, delta: text };
  yield { type: 'message-end', runId, messageId };
}
