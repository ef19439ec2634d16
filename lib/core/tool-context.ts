import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentKernelError } from './errors.js';
import type { RunJournal } from './journal.js';
import type { Request } from './requests.js';

/** What a tool can learn about the run that called it, wherever the framework calls it from. */
export interface ToolContext {
  readonly runId: string;
  readonly sessionId: string;
  readonly agent: string;
  readonly principal?: string;
  readonly signal: AbortSignal;
  /** The run's framework context (a copy: changes reach the session only if the run succeeds). */
  readonly context: Record<string, unknown>;
  /** What the caller asked in this turn (after pre-hooks), e.g. an image a tool should read. */
  readonly requests?: readonly Request[];
  /** The framework's id of the current tool call, once an integration has bound it. */
  readonly callId?: string;
  /** Set when the framework's own approval gate already decided this call (lib/tools skips its port). */
  readonly approval?: ToolApproval;
  /** On a resumed run: the decisions sent for its interruptions, by interruption id. */
  readonly decisions?: Readonly<Record<string, ToolApproval>>;
  /** The run's journal, when the runtime has a journal store: the tool guard and model replay. */
  readonly journal?: RunJournal;
  /** Stable across every attempt of the current call (run + call id): pass it downstream. */
  readonly idempotencyKey?: string;
}

/** A human's (or policy's) decision on one tool call; edited arguments replace the model's. */
export interface ToolApproval {
  readonly status: 'approved' | 'denied';
  readonly arguments?: unknown;
  readonly message?: string;
}

const storage = new AsyncLocalStorage<ToolContext>();

/** Runs `fn(...args)` with `ctx` visible to every async continuation it starts. */
export function runWithToolContext<A extends unknown[], T>(
  ctx: ToolContext,
  fn: (...args: A) => T,
  ...args: A
): T {
  return storage.run(ctx, fn, ...args);
}

export function tryToolContext(): ToolContext | undefined {
  return storage.getStore();
}

export function currentToolContext(): ToolContext {
  const ctx = storage.getStore();
  if (!ctx) {
    throw new AgentKernelError(
      'no-tool-context',
      'No tool context: currentToolContext() was called outside a run of the Runtime.',
    );
  }
  return ctx;
}
