import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { InvalidRequest } from '../core/errors.js';
import type { ToolEffects } from '../core/journal.js';
import { idempotencyKeyOf } from '../core/run-journal.js';
import { runWithToolContext, type ToolContext, tryToolContext } from '../core/tool-context.js';
import { type ArgsIssue, ToolArgsInvalid } from './errors.js';

/** What a handler sees: the run's tool context plus this call's id, signal and attempt. */
export interface ToolCallContext extends ToolContext {
  readonly callId: string;
  /** Aborts on cancellation of the run and on this call's timeout. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
  /** The same for every attempt of this call, across retries and replays: pass it downstream. */
  readonly idempotencyKey: string;
}

export type ToolHandler<A, R> = (args: A, ctx: ToolCallContext) => R | Promise<R>;

export interface RetryPolicy {
  /** Retries after the first attempt (0: none). Only errors marked retryable are retried. */
  readonly retries: number;
  readonly backoffMs: number;
  readonly factor: number;
  readonly maxBackoffMs: number;
}

export interface CachePolicy<A> {
  readonly ttlMs: number;
  /** Cache key from the validated arguments; canonical JSON by default. */
  key?(args: A): string;
  /** Share results across sessions; by default a session only sees its own cached results. */
  readonly shared?: boolean;
}

export interface ToolSpecConfig<S extends z.ZodObject, R> {
  name: string;
  description: string;
  input: S;
  handler: ToolHandler<z.output<S>, R>;
  /** Integration names that export this tool; all of them when absent. */
  targets?: readonly string[];
  /** The call needs approval (a human or a policy) before it runs. */
  confirm?: boolean;
  timeoutMs?: number;
  retries?: number | Partial<RetryPolicy>;
  cache?: CachePolicy<z.output<S>>;
  /** Dotted argument paths (e.g. `card.number`) never recorded in traces, metrics or logs. */
  sensitive?: readonly string[];
  /**
   * What running the tool again does (MCP's `readOnlyHint` / `idempotentHint`). By default a
   * call runs at most once per run: a replay after a crash during it gives the model
   * `tool-outcome-unknown` (or pauses, `onUnknownOutcome: 'pause'`).
   */
  effects?: ToolEffects;
}

export interface ToolSpec<A = unknown, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<A>;
  // A method, so a spec of any argument type is an `AnyToolSpec` (parameters are bivariant).
  handler(args: A, ctx: ToolCallContext): R | Promise<R>;
  readonly targets: readonly string[] | undefined;
  readonly confirm: boolean;
  readonly timeoutMs: number | undefined;
  readonly retry: RetryPolicy;
  readonly cache: CachePolicy<A> | undefined;
  readonly sensitive: readonly string[];
  readonly effects: ToolEffects | undefined;
  /** The input schema as JSON Schema (no `$schema` key), what frameworks hand the model. */
  jsonSchema(): Record<string, unknown>;
  /** Validates arguments; throws `ToolArgsInvalid`. */
  parse(args: unknown): A;
  /** Validates and calls the handler directly, without the executor's policy. */
  invoke(args: unknown): Promise<R>;
  /** Whether integration `name` exports this tool. */
  exportsTo(integration: string): boolean;
}

/** A tool of any argument and result type: what registries and framework exporters hold. */
export type AnyToolSpec = ToolSpec<unknown, unknown>;

export const ToolNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool name must be 1-64 characters of A-Z a-z 0-9 _ -');

const EffectsSchema = z.strictObject({
  readOnly: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  onUnknownOutcome: z.enum(['error', 'pause']).optional(),
});

const DEFAULT_RETRY: RetryPolicy = { retries: 0, backoffMs: 100, factor: 2, maxBackoffMs: 5_000 };

/** Declares a tool once; integrations export it to each framework. */
export function defineTool<S extends z.ZodObject, R>(
  config: ToolSpecConfig<S, R>,
): ToolSpec<z.output<S>, R> {
  const name = ToolNameSchema.safeParse(config.name);
  if (!name.success) {
    throw new InvalidRequest(
      `Invalid tool name "${config.name}": ${name.error.issues[0]?.message}`,
    );
  }
  const effects = EffectsSchema.optional().safeParse(config.effects);
  if (!effects.success) {
    const issue = effects.error.issues[0];
    throw new InvalidRequest(
      `Invalid effects of tool "${config.name}" at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  // Computed once: the schema is what every framework and the model see.
  const { $schema: _ignored, ...schema } = z.toJSONSchema(config.input) as Record<string, unknown>;
  const retries =
    typeof config.retries === 'number' ? { retries: config.retries } : (config.retries ?? {});
  const spec: ToolSpec<z.output<S>, R> = {
    name: config.name,
    description: config.description,
    input: config.input as unknown as z.ZodType<z.output<S>>,
    handler: config.handler,
    targets: config.targets ? [...config.targets] : undefined,
    confirm: config.confirm ?? false,
    timeoutMs: config.timeoutMs,
    retry: { ...DEFAULT_RETRY, ...retries },
    cache: config.cache,
    sensitive: [...(config.sensitive ?? [])],
    effects: effects.data ? Object.freeze(effects.data) : undefined,
    jsonSchema: () => structuredClone(schema),
    parse: (args) => parseArgs(spec, args),
    invoke: async (args) => {
      const parsed = parseArgs(spec, args);
      const ctx = directContext();
      return runWithToolContext(ctx, () => spec.handler(parsed, ctx));
    },
    exportsTo: (target) => spec.targets === undefined || spec.targets.includes(target),
  };
  return Object.freeze(spec);
}

function parseArgs<A>(spec: ToolSpec<A, unknown>, args: unknown): A {
  const parsed = spec.input.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues: ArgsIssue[] = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  throw new ToolArgsInvalid(spec.name, issues);
}

/** Outside a run (scripts, tests) a direct call still gets a usable context. */
export function directContext(): ToolCallContext {
  const ctx = tryToolContext() ?? standaloneContext();
  const callId = ctx.callId ?? `direct-${randomUUID()}`;
  return {
    ...ctx,
    callId,
    attempt: 1,
    idempotencyKey: ctx.idempotencyKey ?? idempotencyKeyOf(ctx.runId, callId),
  };
}

export function standaloneContext(): ToolContext {
  return {
    runId: 'standalone',
    sessionId: 'standalone',
    agent: 'standalone',
    signal: new AbortController().signal,
    context: {},
  };
}
