import type { Agent } from './agent.js';
import {
  AgentKernelError,
  HookError,
  HookTypeChange,
  InvalidContext,
  InvalidRequest,
  RunAborted,
  RunnerError,
  SessionForbidden,
  SessionPaused,
} from './errors.js';
import type { StreamEvent } from './events.js';
import type { PostHook, PreHook, TurnInfo } from './hooks.js';
import { copyJson, isPlainJson } from './json-copy.js';
import { isOwner } from './ownership.js';
import { type AgentReply, type Request, RequestsSchema } from './requests.js';
import { type RunOptions, resolveRunOptions } from './run-options.js';
import type { Decision, RunnerCompleted, RunnerInput } from './runner.js';
import {
  type JsonValue,
  JsonValueSchema,
  newSession,
  type SessionData,
  type SessionStore,
  type StoredSession,
} from './session.js';
import type { ToolContext } from './tool-context.js';
import { traceChild } from './tracer.js';
import type { TurnAbort } from './turn-abort.js';

/** What the runtime hands the turn helpers: shared by run, stream and (later) resume. */
export interface TurnDeps {
  readonly sessions: SessionStore;
  readonly preHooks: readonly PreHook[];
  readonly postHooks: readonly PostHook[];
  readonly now: () => number;
}

export interface TurnSetup {
  readonly agent: Agent;
  readonly runId: string;
  readonly sessionId: string;
  readonly requests: readonly Request[];
  readonly principal?: string;
  /** The incarnation the session gets if this turn creates it (`SessionData.incarnation`). */
  readonly incarnation?: string;
  readonly runOptions?: RunOptions;
  /** Whether earlier attempts of this run may have recorded a journal to replay. */
  readonly replay: boolean;
  /** Told the session as loaded (RunCallOptions.onSession). */
  readonly onSession?: (session: SessionData | undefined) => void;
  /** Aborts the runner when the turn fails, halts or its consumer goes away; its signal is made when first read. */
  readonly abort: TurnAbort;
  /**
   * Set by `Runtime.run`: no caller sees the events, so a new turn's runner may take the
   * framework's non-streaming path (`RunnerInput.drained`) unless a post-hook has `onStreamEvent`.
   */
  readonly drained?: boolean;
  /** The caller's own signal, if any: all the session lock needs (the controller aborts later). */
  readonly callerSignal?: AbortSignal;
}

export interface PreparedTurn {
  readonly setup: TurnSetup;
  readonly stored: StoredSession | undefined;
  readonly info: TurnInfo;
  readonly input: RunnerInput;
  readonly toolContext: ToolContext;
  /** Set when a pre-hook ended the turn with its own reply. */
  readonly halt?: { text: string; output?: unknown };
  /** Set when the turn resumes a paused run instead of starting from requests. */
  readonly resume?: { pausedState: JsonValue; decisions: readonly Decision[] };
}

/**
 * What every turn starts from, a new one or a resumed one: the session (owner-checked), a deep copy
 * of its framework context, and the run options resolved once.
 */
export async function loadTurn(
  deps: TurnDeps,
  setup: TurnSetup,
): Promise<{ stored: StoredSession | undefined; data: SessionData; info: TurnInfo }> {
  const { agent, runId, sessionId, principal } = setup;
  const stored = await deps.sessions.load(sessionId);
  setup.onSession?.(stored?.data);
  if (stored && !isOwner(stored.data.owner, principal)) throw new SessionForbidden(sessionId);
  const data = stored?.data ?? newSessionFor(deps, setup);
  // A deep copy: whatever the framework does to it reaches the session only after success.
  const context = copyJson(data.context) as Record<string, unknown>;
  const runOptions = await resolveRunOptions(
    agent.runner,
    agent.runOptions,
    agent.runOptionsFactory,
    setup.runOptions,
    { runId, sessionId, agent: agent.name, requests: setup.requests, principal },
  );
  const info: TurnInfo = {
    runId,
    sessionId,
    agent: agent.name,
    principal,
    requests: setup.requests,
    runOptions,
    context,
    // A method, not an arrow: bundles keep names, a named closure per turn costs a defineProperty.
    frameworkSession() {
      return structuredClone(data.state[agent.runner.name]);
    },
  };
  return { stored, data, info };
}

/** Load the turn, then run pre-hooks (agent's, then the system's). */
export async function prepareTurn(deps: TurnDeps, setup: TurnSetup): Promise<PreparedTurn> {
  const { agent, sessionId } = setup;
  const loaded = await loadTurn(deps, setup);
  const { stored, data } = loaded;
  // An expired paused run no longer blocks the session: it can never be resumed.
  const waiting = data.paused?.filter((p) => p.expiresAt > deps.now()).map((p) => p.runId);
  if (waiting?.length) throw new SessionPaused(sessionId, waiting);
  let info = loaded.info;
  for (const hook of hooksOf(agent.preHooks, deps.preHooks)) {
    setup.abort.throwIfAborted();
    const current = info;
    const result = await traceChild('pre-hook', 'hook', { hook: hook.name }, () =>
      callHook(hook.name, () => hook.onRun(current)),
    );
    if (!result) continue;
    if ('halt' in result) {
      return {
        setup,
        stored,
        info,
        input: runnerInput(setup, info, data, drainedFor(deps, setup)),
        toolContext: toolCtx(setup, info),
        halt: result.halt,
      };
    }
    const parsed = RequestsSchema.safeParse(result.requests);
    if (!parsed.success) {
      throw new HookError(
        hook.name,
        new InvalidRequest(parsed.error.issues[0]?.message ?? 'bad requests'),
      );
    }
    info = { ...info, requests: parsed.data };
  }
  return {
    setup,
    stored,
    info,
    input: runnerInput(setup, info, data, drainedFor(deps, setup)),
    toolContext: toolCtx(setup, info),
  };
}

/** The agent's hooks, then the system's: the usual turn has none, and gets no array for them. */
export function hooksOf<H>(own: readonly H[], system: readonly H[]): readonly H[] {
  return own.length === 0 && system.length === 0 ? NO_HOOKS : [...own, ...system];
}

const NO_HOOKS: readonly never[] = [];

/** A drained turn, unless a post-hook's `onStreamEvent` must see (and may halt on) tokens. */
function drainedFor(deps: TurnDeps, setup: TurnSetup): boolean {
  if (!setup.drained) return false;
  return !hooksOf(setup.agent.postHooks, deps.postHooks).some((hook) => hook.onStreamEvent);
}

/** The runner's input; its `signal` is read (and so made) only by a runner that uses it. */
export function runnerInput(
  setup: TurnSetup,
  info: TurnInfo,
  data: SessionData,
  drained = false,
): RunnerInput {
  return {
    runId: setup.runId,
    sessionId: setup.sessionId,
    agent: setup.agent,
    requests: info.requests,
    state: data.state[setup.agent.runner.name],
    context: info.context,
    options: info.runOptions,
    get signal() {
      return setup.abort.signal;
    },
    ...(setup.callerSignal ? { callerSignal: setup.callerSignal } : {}),
    ...(drained ? { drained } : {}),
  };
}

export function toolCtx(setup: TurnSetup, info: TurnInfo): ToolContext {
  return {
    runId: setup.runId,
    sessionId: setup.sessionId,
    agent: setup.agent.name,
    principal: setup.principal,
    get signal() {
      return setup.abort.signal;
    },
    context: info.context,
    requests: info.requests,
  };
}

/** Post-hooks (agent's, then the system's), then the conditional save; returns the reply. */
export async function completeTurn(
  deps: TurnDeps,
  turn: PreparedTurn,
  result: RunnerCompleted,
): Promise<AgentReply> {
  const { agent, runId, sessionId } = turn.setup;
  let reply: AgentReply = {
    status: 'completed',
    runId,
    sessionId,
    agent: agent.name,
    text: result.text,
    ...(result.output === undefined ? {} : { output: result.output }),
    ...(result.usage ? { usage: result.usage } : {}),
  };
  for (const hook of hooksOf(agent.postHooks, deps.postHooks)) {
    if (!hook.onRun) continue;
    const current = reply;
    const out = await traceChild('post-hook', 'hook', { hook: hook.name }, () =>
      callHook(hook.name, () => hook.onRun?.(turn.info, current)),
    );
    reply = out ?? reply;
  }
  turn.setup.abort.throwIfAborted();
  const base = turn.stored?.data ?? newSessionFor(deps, turn.setup);
  const next: SessionData = {
    ...base,
    ...pausedAfter(base, turn.resume ? runId : undefined, deps.now()),
    agent: agent.name,
    state: { ...base.state, [agent.runner.name]: result.state },
    context: { ...base.context, ...checkContext(result.context) },
    turns: base.turns + 1,
    lastReply: lastReplyOf(reply),
    updatedAt: deps.now(),
  };
  await deps.sessions.save(next, turn.stored?.version ?? 0);
  return reply;
}

/** The session a turn creates when there is none: its principal's, in the setup's incarnation. */
export function newSessionFor(deps: Pick<TurnDeps, 'now'>, setup: TurnSetup): SessionData {
  return newSession(setup.sessionId, deps.now(), setup.principal, setup.incarnation);
}

/** What a completed turn saves of its reply (`SessionData.lastReply`): a paused one saves none. */
function lastReplyOf(reply: AgentReply): SessionData['lastReply'] {
  if (reply.status !== 'completed') return undefined;
  const output = reply.output as JsonValue | undefined;
  return { runId: reply.runId, text: reply.text, ...(output === undefined ? {} : { output }) };
}

/** The session's paused runs once `resumed` (if any) has finished; expired ones are dropped. */
function pausedAfter(
  base: SessionData,
  resumed: string | undefined,
  now: number,
): Partial<SessionData> {
  if (!base.paused) return {};
  const rest = base.paused.filter((p) => p.runId !== resumed && p.expiresAt > now);
  return { paused: rest.length > 0 ? rest : undefined };
}

function checkContext(context: Record<string, unknown>): Record<string, JsonValue> {
  // Plain JSON (the usual case) needs no schema walk; anything else gets the schema's verdict.
  if (isPlainJson(context)) return context as Record<string, JsonValue>;
  const parsed = JsonValueSchema.safeParse(context);
  if (!parsed.success) {
    throw new InvalidContext(`the value at "${nonJsonPath(context)}" is not JSON.`);
  }
  return parsed.data as Record<string, JsonValue>;
}

/** The path of the first value that is not JSON: zod's union issue only points at the root. */
function nonJsonPath(value: unknown): string {
  const path: string[] = [];
  let current = value;
  descend: while (current !== null && typeof current === 'object') {
    for (const [key, child] of Object.entries(current)) {
      if (!JsonValueSchema.safeParse(child).success) {
        path.push(key);
        current = child;
        continue descend;
      }
    }
    break;
  }
  return path.join('.') || '(root)';
}

/** Applies every post-hook's onStreamEvent to one event; types may not change. */
export async function applyStreamHooks(
  hooks: readonly PostHook[],
  event: StreamEvent,
  info: TurnInfo,
): Promise<readonly StreamEvent[]> {
  let events: readonly StreamEvent[] = [event];
  for (const hook of hooks) {
    if (!hook.onStreamEvent) continue;
    const next: StreamEvent[] = [];
    for (const current of events) {
      const out = await callHook(hook.name, () => hook.onStreamEvent?.(current, info));
      if (out === undefined) {
        next.push(current);
        continue;
      }
      if (out === null) continue;
      for (const produced of Array.isArray(out) ? out : [out as StreamEvent]) {
        if (produced.type !== current.type)
          throw new HookTypeChange(hook.name, current.type, produced.type);
        next.push(produced);
      }
    }
    events = next;
  }
  return events;
}

/** Our own errors (StreamHalt included) pass through; anything else names the hook. */
async function callHook<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AgentKernelError || isAbort(err)) throw err;
    throw new HookError(name, err);
  }
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err instanceof RunAborted);
}

/** Our own error inside a foreign one (`cause`, or `error` as some SDKs name it), a few levels deep. */
function wrappedKernelError(err: unknown): AgentKernelError | undefined {
  let current = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const inner: unknown =
      (current as { cause?: unknown }).cause ?? (current as { error?: unknown }).error;
    if (inner instanceof AgentKernelError) return inner;
    current = inner;
  }
  return undefined;
}

/** A runner's foreign error becomes a RunnerError with a code; ours pass through. */
export function normaliseRunError(
  err: unknown,
  agent: string,
  signal: AbortSignal,
): AgentKernelError {
  if (err instanceof AgentKernelError) return err;
  // A framework that wraps what a tool threw (the OpenAI SDK's ToolCallError keeps it in `error`)
  // must not hide our own failure: a throttled journal write stays a retryable store-throttled.
  const ours = wrappedKernelError(err);
  if (ours) return ours;
  if (signal.aborted || isAbort(err)) {
    const reason = signal.reason instanceof AgentKernelError ? signal.reason : undefined;
    return (
      reason ?? new RunAborted(signal.reason instanceof Error ? signal.reason.message : undefined)
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RunnerError(`Agent "${agent}" failed: ${message}`, { cause: err });
}
