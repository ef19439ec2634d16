import { AgentKernelError } from '../core/errors.js';

/** One problem with a tool's arguments, as the model should read it. */
export interface ArgsIssue {
  readonly path: string;
  readonly message: string;
}

/** Base of the tool layer's errors: `code` is the model-visible `kind`. */
export class ToolLayerError extends AgentKernelError {}

/** Arguments that fail the tool's schema (never a raw zod error). */
export class ToolArgsInvalid extends ToolLayerError {
  readonly tool: string;
  readonly issues: readonly ArgsIssue[];

  constructor(tool: string, issues: readonly ArgsIssue[]) {
    const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super('invalid-arguments', `Invalid arguments for tool "${tool}": ${detail}`);
    this.tool = tool;
    this.issues = issues;
  }
}

/** A failure a tool reports on purpose; its message is meant for the model. */
export class ToolError extends ToolLayerError {
  /** Only retryable errors are retried by the executor. */
  readonly retryable: boolean;

  constructor(message: string, options?: { retryable?: boolean; code?: string; cause?: unknown }) {
    super(options?.code ?? 'tool-error', message, options);
    this.retryable = options?.retryable ?? false;
  }
}

export class ApprovalDenied extends ToolLayerError {
  constructor(tool: string, reason?: string) {
    super(
      'approval-denied',
      `The call to tool "${tool}" was not approved${reason ? `: ${reason}` : '.'}`,
    );
  }
}

/** Thrown by a hook (or guardrail) that refuses a call. */
export class GuardrailBlocked extends ToolLayerError {
  constructor(tool: string, reason: string) {
    super('guardrail-blocked', `The call to tool "${tool}" was blocked: ${reason}`);
  }
}

export class RunLimitExceeded extends ToolLayerError {
  readonly limit: string;

  constructor(limit: string, max: number) {
    super('run-limit-exceeded', `This run reached its limit of ${max} ${limit}.`);
    this.limit = limit;
  }
}

export class ToolTimeout extends ToolLayerError {
  constructor(tool: string, ms: number) {
    super('tool-timeout', `Tool "${tool}" did not finish within ${ms} ms.`);
  }
}

/**
 * Control flow, not a failure: a `confirm` call needs a human decision that is not there yet.
 * Runners without a native approval gate turn it into a paused run (`run-paused`); it always
 * propagates, like cancellation, and is never shown to the model.
 */
export class ApprovalPending extends ToolLayerError {
  readonly interruption: {
    readonly id: string;
    readonly kind: 'tool-approval';
    readonly toolName: string;
    readonly arguments: unknown;
    /** Why a person is asked (e.g. the call's outcome is unknown after a crash). */
    readonly message?: string;
  };

  constructor(tool: string, callId: string, args: unknown, message?: string) {
    super('approval-pending', `The call to tool "${tool}" waits for approval.`);
    this.interruption = {
      id: callId,
      kind: 'tool-approval',
      toolName: tool,
      arguments: args,
      ...(message === undefined ? {} : { message }),
    };
  }
}

/** Errors an integration must rethrow instead of showing them to the model. */
export function mustPropagate(err: unknown): boolean {
  return isAbortError(err) || err instanceof ApprovalPending;
}

/** A second tool registered under a name already taken. */
export class DuplicateTool extends ToolLayerError {
  constructor(tool: string) {
    super('duplicate-tool', `A tool named "${tool}" is already registered.`);
  }
}

export class ToolNotFound extends ToolLayerError {
  constructor(tool: string) {
    super('tool-not-found', `No tool named "${tool}" is registered.`);
  }
}

/** Cancellation: always propagates, never shown to the model as a tool error. */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** An AbortError carrying the signal's reason, for code that only checks the name. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (isAbortError(reason)) return reason as Error;
  const err = new Error('The tool call was cancelled.', { cause: reason });
  err.name = 'AbortError';
  return err;
}

export interface ModelVisibleError {
  error: { kind: string; message: string };
}

/**
 * What the model may see of a failure: our errors keep their message; a foreign exception shows
 * only its class name, since its text may hold secrets or internals.
 */
export function modelVisibleError(err: unknown): ModelVisibleError {
  if (err instanceof AgentKernelError) return { error: { kind: err.code, message: err.message } };
  if (isAbortError(err))
    return { error: { kind: 'cancelled', message: 'The call was cancelled.' } };
  const name =
    err instanceof Error ? err.constructor?.name || err.name || 'Error' : typeof err || 'unknown';
  return { error: { kind: 'tool-failed', message: `The tool failed with ${name}.` } };
}

export function isModelVisibleError(value: unknown): value is ModelVisibleError {
  const error = (value as ModelVisibleError | null)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.kind === 'string' &&
    typeof error.message === 'string'
  );
}
