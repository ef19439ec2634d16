import { runWithToolContext, type ToolContext } from '../../core/tool-context.js';
import { type ApprovalDecision, denyAll } from '../../tools/approval.js';
import { ApprovalDenied, abortError, ToolTimeout } from '../../tools/errors.js';
import {
  completeContext,
  Executor,
  type RunSpecOptions,
  type ToolRunner,
} from '../../tools/executor.js';
import type { ToolSpec } from '../../tools/spec.js';
import type { RunnerFactory, RunnerFactoryOptions } from './harness.js';

/** The real executor, for `contractTests(harness, { runnerFactory: executorRunnerFactory })`. */
export const executorRunnerFactory: RunnerFactory = (options) =>
  new Executor({
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
  });

/**
 * A small stand-in with the executor's contract (validate, hooks, approval, timeout, abort), so
 * an integration's checks fail only for the integration's own faults.
 */
export const fakeRunnerFactory: RunnerFactory = (options) => new FakeRunner(options);

class FakeRunner implements ToolRunner {
  readonly #options: RunnerFactoryOptions;

  constructor(options: RunnerFactoryOptions) {
    this.#options = options;
  }

  async runSpec<A, R>(
    spec: ToolSpec<A, R>,
    args: unknown,
    partial: Partial<ToolContext>,
    options: RunSpecOptions,
  ): Promise<R> {
    const ctx = completeContext(partial);
    let parsed = spec.parse(args);
    const info = { tool: spec.name, callId: options.callId, args: parsed, ctx };
    for (const hook of this.#options.hooks ?? []) await hook.before?.(info);
    if (spec.confirm || ctx.approval) {
      const port = options.approval ?? this.#options.approval ?? denyAll;
      const decision: ApprovalDecision =
        ctx.approval ??
        (await port.decide({
          ...info,
          args: parsed,
          runId: ctx.runId,
          sessionId: ctx.sessionId,
          agent: ctx.agent,
        }));
      if (decision.status === 'denied') throw new ApprovalDenied(spec.name, decision.message);
      if (decision.arguments !== undefined) parsed = spec.parse(decision.arguments);
    }
    try {
      const result = await this.#once(spec, parsed, ctx, options.callId);
      for (const hook of this.#options.hooks ?? [])
        await hook.after?.(info, { ok: true, result, cached: false });
      return result;
    } catch (err) {
      for (const hook of this.#options.hooks ?? [])
        await hook.after?.(info, { ok: false, error: err });
      throw err;
    }
  }

  #once<A, R>(spec: ToolSpec<A, R>, args: A, ctx: ToolContext, callId: string): Promise<R> {
    const timeout = new AbortController();
    const signal = AbortSignal.any([ctx.signal, timeout.signal]);
    const idempotencyKey = ctx.idempotencyKey ?? `${ctx.runId}:${callId}`;
    const callCtx = { ...ctx, callId, signal, attempt: 1, idempotencyKey };
    return new Promise<R>((resolve, reject) => {
      if (ctx.signal.aborted) return reject(abortError(ctx.signal));
      const onAbort = () => reject(abortError(ctx.signal));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const ms = spec.timeoutMs;
      const timer =
        ms === undefined
          ? undefined
          : setTimeout(() => {
              const err = new ToolTimeout(spec.name, ms);
              reject(err);
              timeout.abort(err);
            }, ms);
      Promise.resolve()
        .then(() => runWithToolContext(callCtx, () => spec.handler(args, callCtx)))
        .then(resolve, reject)
        .finally(() => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
        });
    });
  }
}
