import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MissingDependency } from '../../core/errors.js';
import { type ToolContext, tryToolContext } from '../../core/tool-context.js';
import type { ApprovalPort } from '../../tools/approval.js';
import { type ModelVisibleError, modelVisibleError, mustPropagate } from '../../tools/errors.js';
import { runnerFor, type ToolRunner } from '../../tools/executor.js';
import { unknownOutcomeId } from '../../tools/guard.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { type AnyToolSpec, standaloneContext } from '../../tools/spec.js';
import { isInstalled } from './candidates.js';
import { ReservedToolOption } from './errors.js';

export interface ExportOptions {
  /**
   * Every call of an exported tool goes through this runner (usually an `Executor`); without
   * one, a shared default `Executor` (`runnerFor`).
   */
  readonly executor?: ToolRunner;
  /**
   * The framework's own per-tool options (e.g. LangChain `returnDirect`, AI SDK
   * `providerOptions`), merged into the native tool; per spec when a function. Keys the
   * integration sets itself are refused (`reserved-tool-option`).
   */
  readonly native?: NativeToolOptions | ((spec: AnyToolSpec) => NativeToolOptions | undefined);
}

export type NativeToolOptions = Readonly<Record<string, unknown>>;

/** A tool context with the framework's call id bound. */
export type BoundToolContext = ToolContext & { readonly callId: string };

/**
 * The protocol a framework integration implements; structural, so a plugin package need not
 * import this project. See docs/integrations.md.
 */
export interface Integration<TExported = unknown> {
  readonly name: string;
  /** Modules that must be importable for the integration to work (the framework SDK). */
  readonly requires: readonly string[];
  /** The package to install when `requires` is not met, named in `MissingDependency`. */
  readonly extra: string;
  /** One ToolSpec as the framework's native tool; its calls go through `options.executor`. */
  exportTool(spec: AnyToolSpec, options?: ExportOptions): TExported;
  /** Every tool of the registry whose `targets` include this integration. */
  exportTools?(registry: ToolRegistry, options?: ExportOptions): TExported[];
  /** The current tool context with the native call id (from the framework's call object). */
  bindContext(native: unknown): BoundToolContext;
  /**
   * Binds an approval port: the framework's native gate built on it, or `undefined` when the
   * executor's port decides (every built-in integration: the bound port replaces its gate).
   */
  bindApproval(port: ApprovalPort | undefined): unknown;
  /** Optional: compile a framework-neutral flow into the framework's own graph or workflow. */
  compileFlow?(flow: unknown, options: ExportOptions): unknown;
}

const ATTRIBUTES = { name: 'string', extra: 'string' } as const;
const METHODS = ['exportTool', 'bindContext', 'bindApproval'] as const;

/** Why `value` is not an integration, or undefined when it is one. */
export function integrationProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `it is ${typeOf(value)}, not an object`;
  const record = value as Record<string, unknown>;
  const missing = METHODS.filter((m) => typeof record[m] !== 'function');
  if (missing.length) return `it is not an integration (no ${missing.join(', ')} method)`;
  for (const [key, type] of Object.entries(ATTRIBUTES)) {
    if (typeof record[key] !== type || record[key] === '') {
      return `its "${key}" is ${typeOf(record[key])}, not a non-empty ${type}`;
    }
  }
  const requires = record.requires;
  if (!Array.isArray(requires) || requires.some((r) => typeof r !== 'string')) {
    return `its "requires" is ${typeOf(requires)}, not an array of strings`;
  }
  for (const key of ['exportTools', 'compileFlow']) {
    if (record[key] !== undefined && typeof record[key] !== 'function') {
      return `its "${key}" is ${typeOf(record[key])}, not a function`;
    }
  }
  return undefined;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * What most integrations share: export by target, call ids read from the native call object,
 * the bound approval port, and `runBound` for frameworks without a tool-error channel.
 */
export abstract class IntegrationBase<TExported = unknown> implements Integration<TExported> {
  abstract readonly name: string;
  abstract readonly requires: readonly string[];
  abstract readonly extra: string;
  /** Dotted paths of the native call id in the object `bindContext` receives, first found wins. */
  protected readonly callIdFields: readonly string[] = [];
  protected approvalPort: ApprovalPort | undefined;

  abstract exportTool(spec: AnyToolSpec, options?: ExportOptions): TExported;

  exportTools(registry: ToolRegistry, options: ExportOptions = {}): TExported[] {
    return registry.forTarget(this.name).map((spec) => this.exportTool(spec, options));
  }

  bindContext(native: unknown): BoundToolContext {
    const base = tryToolContext() ?? standaloneContext();
    const callId = readPath(native, this.callIdFields) ?? `${this.name}-${randomUUID()}`;
    return { ...base, callId };
  }

  bindApproval(port: ApprovalPort | undefined): undefined {
    this.approvalPort = port;
    return undefined;
  }

  /** `options.native` for `spec`, refused when it names a key this integration sets itself. */
  protected nativeOptions(
    spec: AnyToolSpec,
    options: ExportOptions,
    reserved: readonly string[],
  ): Record<string, unknown> {
    const given = typeof options.native === 'function' ? options.native(spec) : options.native;
    for (const key of Object.keys(given ?? {})) {
      if (reserved.includes(key)) throw new ReservedToolOption(this.name, spec.name, key);
    }
    return { ...given };
  }

  /** Throws `MissingDependency` (naming `extra`) unless every module of `requires` resolves. */
  require(from: string = process.cwd()): void {
    const resolve = createRequire(join(from, 'package.json')).resolve;
    for (const specifier of this.requires) {
      if (!isInstalled(specifier, [from]) && !resolvable(resolve, specifier)) {
        throw new MissingDependency(this.extra, `The "${this.name}" integration`);
      }
    }
  }

  /** One call through the runner; errors are thrown (for frameworks with an error channel). */
  protected run(
    spec: AnyToolSpec,
    args: unknown,
    native: unknown,
    options: ExportOptions,
    overrides: Partial<ToolContext> = {},
    entry?: string,
  ): Promise<unknown> {
    const ctx = withEdit({ ...this.bindContext(native), ...overrides });
    return runnerFor(options.executor).runSpec(spec, args, ctx, {
      callId: ctx.callId,
      ...(this.approvalPort ? { approval: this.approvalPort } : {}),
      ...(entry ? { entry } : {}),
    });
  }

  /**
   * The framework's own control flow thrown through a tool (LangGraph's `interrupt()`): it
   * passes through `runBound` as it is, never shown to the model as a tool error.
   */
  protected passesThrough(_err: unknown): boolean {
    return false;
  }

  /**
   * For frameworks with no tool-error channel: a failure becomes the model-visible error as the
   * tool's result. Cancellation, a pause and the framework's own control flow still propagate.
   */
  protected async runBound(
    spec: AnyToolSpec,
    args: unknown,
    native: unknown,
    options: ExportOptions,
    overrides: Partial<ToolContext> = {},
    entry?: string,
  ): Promise<unknown | ModelVisibleError> {
    try {
      return await this.run(spec, args, native, options, overrides, entry);
    } catch (err) {
      if (mustPropagate(err) || this.passesThrough(err)) throw err;
      return modelVisibleError(err);
    }
  }
}

/**
 * The framework's gate approved the call and already applied the approver's edit to its
 * arguments; the executor still learns of the edit (the same arguments), so the ledger says
 * `approved-edited` rather than `approved`.
 */
function withEdit<C extends BoundToolContext>(ctx: C): C {
  if (ctx.approval?.status !== 'approved' || ctx.approval.arguments !== undefined) return ctx;
  const decision = ctx.decisions?.[ctx.callId] ?? ctx.decisions?.[unknownOutcomeId(ctx.callId)];
  if (decision?.status !== 'approved' || decision.arguments === undefined) return ctx;
  return { ...ctx, approval: { status: 'approved', arguments: decision.arguments } };
}

function resolvable(resolve: NodeJS.RequireResolve, specifier: string): boolean {
  try {
    resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

function readPath(native: unknown, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    let current: unknown = native;
    for (const key of path.split('.')) {
      current =
        current !== null && typeof current === 'object'
          ? (current as Record<string, unknown>)[key]
          : undefined;
    }
    if (typeof current === 'string' && current) return current;
  }
  return undefined;
}
