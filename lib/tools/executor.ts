import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerEntry } from '../core/ledger.js';
import { idempotencyKeyOf } from '../core/run-journal.js';
import { runWithToolContext, type ToolContext } from '../core/tool-context.js';
import { type Span, traceChild } from '../core/tracer.js';
import { type ApprovalDecision, denyAll } from './approval.js';
import { ResultCache } from './cache.js';
import {
  ApprovalDenied,
  ApprovalPending,
  abortError,
  isAbortError,
  modelVisibleError,
  RunLimitExceeded,
  ToolArgsInvalid,
  ToolError,
  ToolTimeout,
} from './errors.js';
import { guardCall } from './guard.js';
import { canonicalJson, hashArgs } from './ledger.js';
import {
  completeContext,
  type ExecutorOptions,
  type RunLimits,
  type RunSpecOptions,
  type ToolCallInfo,
  type ToolRunner,
} from './runner.js';
import type { AnyToolSpec, ToolCallContext, ToolSpec } from './spec.js';

export {
  completeContext,
  type ExecutorOptions,
  type RunLimits,
  type RunSpecOptions,
  type ToolCallInfo,
  type ToolHook,
  type ToolOutcome,
  type ToolRunner,
} from './runner.js';

type Approval = NonNullable<LedgerEntry['approval']>;

/** Validate → limits → before hooks → approval → cache → run (timeout, retries) → after hooks → ledger. */
export class Executor implements ToolRunner {
  readonly #options: ExecutorOptions;
  readonly #cache: ResultCache;
  readonly #now: () => number;
  /** Calls per run: total and per tool. Bounded so a long-lived process does not grow. */
  readonly #counts = new Map<string, { total: number; perTool: Map<string, number> }>();

  constructor(options: ExecutorOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#cache = options.cache ?? new ResultCache({ now: this.#now });
  }

  /** One call inside a `tool` span (a child of the run's span; the handler's calls nest under it). */
  runSpec<A, R>(
    spec: ToolSpec<A, R>,
    args: unknown,
    partial: Partial<ToolContext>,
    options: RunSpecOptions,
  ): Promise<R> {
    const attributes = { tool: spec.name, callId: options.callId };
    return traceChild(spec.name, 'tool', attributes, (span) =>
      this.#runSpec(spec, args, partial, options, span),
    );
  }

  async #runSpec<A, R>(
    spec: ToolSpec<A, R>,
    args: unknown,
    partial: Partial<ToolContext>,
    options: RunSpecOptions,
    span: Span,
  ): Promise<R> {
    const ctx = completeContext(partial);
    // Thunks: a function-valued argument or result is data here, never called.
    span.setPayload('input', () => args, { sensitive: spec.sensitive });
    const startedAt = this.#now();
    const { callId } = options;
    const state = { argsHash: hashArgs(args), approval: undefined as Approval | undefined };
    const tally = { attempts: 1 };
    // Started in an earlier attempt: approved then (approval comes before the start), so not
    // asked again; done: replayed from the journal, not run or recorded again.
    const recorded = ctx.journal?.recordedCall(callId);
    const replayed = recorded?.status === 'done';
    let cached = false;
    let info: ToolCallInfo | undefined;
    try {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      this.#count(ctx, callId, spec.name);
      let parsed = spec.parse(args);
      state.argsHash = hashArgs(parsed);
      info = { tool: spec.name, callId, args: parsed, ctx };
      for (const hook of this.#options.hooks ?? []) {
        const out = await hook.before?.(info);
        if (out) {
          parsed = spec.parse(out.args);
          info = { ...info, args: parsed };
        }
      }
      if (!recorded) parsed = await this.#approve(spec, parsed, ctx, options, state);
      info = { ...info, args: parsed };
      state.argsHash = hashArgs(parsed);
      const key = spec.cache ? cacheKey(spec, parsed, ctx) : undefined;
      const hit = key === undefined ? undefined : this.#cache.get(key);
      let result: R;
      if (hit) {
        cached = true;
        result = hit.value as R;
      } else {
        const call = {
          tool: spec.name,
          callId,
          effects: spec.effects,
          args: parsed,
          ...(options.entry ? { entry: options.entry } : {}),
        };
        result = await guardCall(ctx, call, (callCtx) =>
          this.#attempts(spec, parsed, callCtx, callId, tally),
        );
        if (key !== undefined && spec.cache) this.#cache.set(key, result, spec.cache.ttlMs);
      }
      for (const hook of this.#options.hooks ?? []) {
        const out = await hook.after?.(info, { ok: true, result, cached });
        if (out) result = out.result as R;
      }
      if (!replayed) {
        await this.#record(spec, ctx, callId, state, cached ? 'cached' : 'ok', tally, startedAt);
      }
      span.setAttributes({
        outcome: cached ? 'cached' : 'ok',
        attempts: tally.attempts,
        ...(replayed ? { replayed: true } : {}),
      });
      span.setPayload('output', () => result);
      return result;
    } catch (err) {
      if (info) {
        // Observers only: a failure's outcome is not rewritten by a hook.
        for (const hook of this.#options.hooks ?? [])
          await hook.after?.(info, { ok: false, error: err });
      }
      const outcome = outcomeOf(err, ctx);
      span.setAttributes({ outcome, attempts: tally.attempts });
      if (!replayed) await this.#record(spec, ctx, callId, state, outcome, tally, startedAt, err);
      throw err;
    }
  }

  /** Returns the arguments to run with (edited ones when the approver changed them). */
  async #approve<A>(
    spec: ToolSpec<A, unknown>,
    args: A,
    ctx: ToolContext,
    options: RunSpecOptions,
    state: { approval: Approval | undefined },
  ): Promise<A> {
    // A decision the framework's own gate made wins; otherwise only `confirm` tools ask.
    if (!spec.confirm && !ctx.approval) {
      state.approval = 'not-required';
      return args;
    }
    const port = options.approval ?? this.#options.approval ?? denyAll;
    const decision: ApprovalDecision =
      ctx.approval ??
      (await port.decide({
        tool: spec.name,
        callId: options.callId,
        args,
        runId: ctx.runId,
        sessionId: ctx.sessionId,
        agent: ctx.agent,
        ...(ctx.principal === undefined ? {} : { principal: ctx.principal }),
      }));
    if (decision.status === 'denied') {
      state.approval = 'denied';
      throw new ApprovalDenied(spec.name, decision.message);
    }
    if (decision.arguments === undefined) {
      state.approval = 'approved';
      return args;
    }
    state.approval = 'approved-edited';
    return spec.parse(decision.arguments);
  }

  async #attempts<A, R>(
    spec: ToolSpec<A, R>,
    args: A,
    ctx: ToolContext,
    callId: string,
    tally: { attempts: number },
  ): Promise<R> {
    const { retries, backoffMs, factor, maxBackoffMs } = spec.retry;
    for (let attempt = 1; ; attempt++) {
      tally.attempts = attempt;
      try {
        return await this.#once(spec, args, ctx, callId, attempt);
      } catch (err) {
        const retryable = err instanceof ToolError && err.retryable;
        if (!retryable || attempt > retries || ctx.signal.aborted) throw err;
        const delay = Math.min(backoffMs * factor ** (attempt - 1), maxBackoffMs);
        try {
          await sleep(delay, undefined, { signal: ctx.signal });
        } catch {
          throw abortError(ctx.signal);
        }
      }
    }
  }

  /** One attempt: the handler runs in the tool context with this call's id and signal. */
  #once<A, R>(
    spec: ToolSpec<A, R>,
    args: A,
    ctx: ToolContext,
    callId: string,
    attempt: number,
  ): Promise<R> {
    const timeoutMs = spec.timeoutMs ?? this.#options.defaultTimeoutMs;
    const timeout = new AbortController();
    const signal = AbortSignal.any([ctx.signal, timeout.signal]);
    const callCtx: ToolCallContext = {
      ...ctx,
      callId,
      signal,
      attempt,
      idempotencyKey: ctx.idempotencyKey ?? idempotencyKeyOf(ctx.runId, callId),
    };
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => reject(abortError(ctx.signal));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const err = new ToolTimeout(spec.name, timeoutMs);
          reject(err);
          // Tells a handler that listens to stop its work; its late answer is ignored.
          timeout.abort(err);
        }, timeoutMs);
      }
      Promise.resolve()
        .then(() => runWithToolContext(callCtx, () => spec.handler(args, callCtx)))
        .then(resolve, reject)
        .finally(() => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
        });
    });
  }

  /**
   * Run limits. With a journal they count the run's calls over every attempt and instance (a
   * resumed run continues its count); a call replayed from the journal is not counted again.
   */
  #count(ctx: ToolContext, callId: string, tool: string): void {
    const limits = this.#options.limits;
    const journal = ctx.journal;
    if (journal) {
      if (journal.recordedCall(callId)) return;
      if (limits) checkLimits(limits, tool, journal.toolCalls(), journal.toolCalls(tool));
      journal.countCall(callId, tool);
      return;
    }
    if (!limits) return;
    let counts = this.#counts.get(ctx.runId);
    if (!counts) {
      if (this.#counts.size >= 1_000) this.#counts.delete(this.#counts.keys().next().value ?? '');
      counts = { total: 0, perTool: new Map() };
      this.#counts.set(ctx.runId, counts);
    }
    const perTool = counts.perTool.get(tool) ?? 0;
    checkLimits(limits, tool, counts.total, perTool);
    counts.total += 1;
    counts.perTool.set(tool, perTool + 1);
  }

  async #record(
    spec: AnyToolSpec,
    ctx: ToolContext,
    callId: string,
    state: { argsHash: string; approval: Approval | undefined },
    outcome: LedgerEntry['outcome'],
    tally: { attempts: number },
    startedAt: number,
    err?: unknown,
  ): Promise<void> {
    const ledger = this.#options.ledger;
    if (!ledger) return;
    // An audit write that fails fails the call: an unrecorded call must not look recorded.
    await ledger.record({
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      callId,
      tool: spec.name,
      argsHash: state.argsHash,
      outcome,
      ...(err === undefined ? {} : { errorKind: modelVisibleError(err).error.kind }),
      ...(state.approval ? { approval: state.approval } : {}),
      attempts: tally.attempts,
      durationMs: Math.max(0, this.#now() - startedAt),
      startedAt,
    });
  }
}

function checkLimits(limits: RunLimits, tool: string, total: number, perTool: number): void {
  if (limits.toolCallsPerRun !== undefined && total >= limits.toolCallsPerRun) {
    throw new RunLimitExceeded('tool calls', limits.toolCallsPerRun);
  }
  if (limits.callsPerToolPerRun !== undefined && perTool >= limits.callsPerToolPerRun) {
    throw new RunLimitExceeded(`calls of tool "${tool}"`, limits.callsPerToolPerRun);
  }
}

function outcomeOf(err: unknown, ctx: ToolContext): LedgerEntry['outcome'] {
  if (isAbortError(err) || ctx.signal.aborted) return 'cancelled';
  if (err instanceof ApprovalPending) return 'paused';
  if (err instanceof ToolArgsInvalid) return 'invalid-args';
  if (err instanceof ApprovalDenied) return 'denied';
  if (err instanceof ToolTimeout) return 'timeout';
  if (err instanceof RunLimitExceeded) return 'limit';
  return 'error';
}

/** Scoped to the session unless the tool says its results are shareable. */
function cacheKey<A>(spec: ToolSpec<A, unknown>, args: A, ctx: ToolContext): string {
  const argsKey = spec.cache?.key ? spec.cache.key(args) : canonicalJson(args);
  const scope = spec.cache?.shared ? '*' : ctx.sessionId;
  return `${spec.name}\u0000${scope}\u0000${argsKey}`;
}

let defaultExecutor: Executor | undefined;

/**
 * The runner an exported tool calls through: the given one, else one shared default `Executor`
 * (validation, timeouts, retries, no ledger), so a tool exported without options still works.
 */
export function runnerFor(executor?: ToolRunner): ToolRunner {
  if (executor) return executor;
  defaultExecutor ??= new Executor();
  return defaultExecutor;
}
