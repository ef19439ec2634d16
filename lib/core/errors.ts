/**
 * Every error the runtime raises on purpose. One base class sets `name` and a stable `code`
 * (kebab-case, safe to send to clients); the message is written for a human.
 */
export class AgentKernelError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An agent name that no registered agent has. */
export class AgentNotFound extends AgentKernelError {
  constructor(agent: string) {
    super('agent-not-found', `No agent named "${agent}" is registered.`);
  }
}

/** A second agent registered under a name already taken. */
export class DuplicateAgent extends AgentKernelError {
  constructor(agent: string) {
    super('duplicate-agent', `An agent named "${agent}" is already registered.`);
  }
}

/** Requests or other caller input that does not match its schema. */
export class InvalidRequest extends AgentKernelError {
  constructor(message: string) {
    super('invalid-request', message);
  }
}

/** A run option whose key the runner owns; the reason says what to use instead. */
export class ReservedRunOption extends AgentKernelError {
  readonly key: string;

  constructor(runner: string, key: string, reason: string) {
    super(
      'reserved-run-option',
      `Run option "${key}" is reserved by the ${runner} runner: ${reason}`,
    );
    this.key = key;
  }
}

/** The stored session changed between load and save (another writer won). */
export class SessionConflict extends AgentKernelError {
  constructor(sessionId: string, expected: number, actual?: number) {
    super(
      'session-conflict',
      `Session "${sessionId}" was changed by another turn (expected version ${expected}` +
        `${actual === undefined ? '' : `, found ${actual}`}); the turn was not saved.`,
    );
  }
}

/** Stored session data that fails its schema (corrupt or from an unknown version). */
export class SessionCorrupt extends AgentKernelError {
  constructor(sessionId: string, detail: string) {
    super('session-corrupt', `Stored session "${sessionId}" is not valid: ${detail}`);
  }
}

/** The session belongs to another principal. */
export class SessionForbidden extends AgentKernelError {
  constructor(sessionId: string) {
    super('session-forbidden', `Session "${sessionId}" belongs to another principal.`);
  }
}

/** Framework context that cannot be stored as JSON. */
export class InvalidContext extends AgentKernelError {
  constructor(detail: string) {
    super('invalid-context', `Framework context must be JSON: ${detail}`);
  }
}

/** A new turn on a session whose earlier run waits for decisions. */
export class SessionPaused extends AgentKernelError {
  readonly runIds: readonly string[];

  constructor(sessionId: string, runIds: readonly string[]) {
    super(
      'session-paused',
      `Session "${sessionId}" has a run waiting for decisions (${runIds.join(', ')}): ` +
        'resume it before starting a new turn.',
    );
    this.runIds = runIds;
  }
}

/** Decisions that do not fit the paused run (unknown id, missing or duplicate decision). */
export class InvalidDecisions extends AgentKernelError {
  constructor(message: string) {
    super('invalid-decisions', message);
  }
}

/** The agent's runner cannot pause (or resume), or the runtime has no paused-run store. */
export class PauseUnsupported extends AgentKernelError {
  constructor(message: string) {
    super('pause-unsupported', message);
  }
}

/** The model provider failed (HTTP error, rate limit, malformed answer). */
export class ModelError extends AgentKernelError {
  readonly status: number | undefined;

  constructor(message: string, options?: { status?: number; cause?: unknown }) {
    super(options?.status === 429 ? 'model-rate-limited' : 'model-error', message, options);
    this.status = options?.status;
  }
}

/** A runner failed for a reason other than the model. */
export class RunnerError extends AgentKernelError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? 'runner-error', message, options);
  }
}

/** A package the caller asked for (a framework SDK, an optional peer) is not installed. */
export class MissingDependency extends AgentKernelError {
  readonly package: string;

  constructor(pkg: string, feature: string, options?: { cause?: unknown }) {
    super(
      'missing-dependency',
      `${feature} needs the package "${pkg}": npm install ${pkg}`,
      options,
    );
    this.package = pkg;
  }
}

/** The caller aborted the run through its AbortSignal. */
export class RunAborted extends AgentKernelError {
  constructor(reason?: string) {
    super('run-aborted', reason ? `The run was aborted: ${reason}` : 'The run was aborted.');
  }
}

/** A hook failed; the turn is not stored. */
export class HookError extends AgentKernelError {
  constructor(hook: string, cause: unknown) {
    super('hook-error', `Hook "${hook}" failed: ${describeError(cause)}`, { cause });
  }
}

/** A post-hook tried to turn an event into one of another type. */
export class HookTypeChange extends AgentKernelError {
  constructor(hook: string, from: string, to: string) {
    super('hook-type-change', `Hook "${hook}" may not change a "${from}" event into "${to}".`);
  }
}

/**
 * Thrown by a hook to stop a streamed run: the runtime closes open boundaries, emits
 * `run-error` with this code and message, and does not store the session.
 */
export class StreamHalt extends AgentKernelError {
  constructor(message: string, code = 'stream-halted') {
    super(code, message);
  }
}

/** One readable line for any thrown value; foreign errors keep their own message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** The code and message to report for any thrown value. */
export function toErrorInfo(err: unknown): { code: string; message: string } {
  if (err instanceof AgentKernelError) return { code: err.code, message: err.message };
  if (err instanceof Error && err.name === 'AbortError') {
    return { code: 'run-aborted', message: 'The run was aborted.' };
  }
  return { code: 'internal-error', message: describeError(err) };
}

/**
 * A tool call that started in an earlier attempt of the run and never recorded an outcome (the
 * process died during it): it may have run. Not run again unless the tool is read-only or
 * idempotent; the model sees `tool-outcome-unknown`, or the run pauses when the tool asks to.
 */
export class ToolOutcomeUnknown extends AgentKernelError {
  readonly callId: string;
  readonly tool: string;
  readonly pause: boolean;

  constructor(tool: string, callId: string, options: { pause?: boolean } = {}) {
    super(
      'tool-outcome-unknown',
      `Tool "${tool}" (call ${callId}) started in an earlier attempt of this run and its outcome ` +
        'is unknown: it was not run again.',
    );
    this.tool = tool;
    this.callId = callId;
    this.pause = options.pause ?? false;
  }
}

/**
 * A tool call's recorded failure, thrown again on replay instead of running the tool: its `code`
 * is the recorded model-visible kind, so the model reads the same error as the first time.
 */
export class RecordedToolFailure extends AgentKernelError {
  readonly kind: string;

  constructor(kind: string, message: string) {
    super(kind, message);
    this.kind = kind;
  }
}
