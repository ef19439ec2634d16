import type { DiscoveryOptions } from '../../frameworks/base/discovery.js';
import type { ExportOptions, Integration } from '../../frameworks/base/integration.js';
import type { ApprovalDecision, ApprovalPort } from '../../tools/approval.js';
import type { ToolHook, ToolRunner } from '../../tools/executor.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AnyToolSpec } from '../../tools/spec.js';

/**
 * How the kit decides `confirm` tools: `executor` — the runner's ApprovalPort decides;
 * `native` — the framework's own gate decides, driven through `approveFlow` (or through a port
 * given to `bindApproval` when `nativeGateOnPort` is set).
 */
export type ApprovalMode = 'executor' | 'native';

/** What a framework's author writes so the kit can drive the integration. */
export interface ContractHarness<TExported = unknown, TResult = unknown> {
  /** The integration's name, as discovery finds it. */
  readonly name: string;
  integration(): Integration<TExported> | Promise<Integration<TExported>>;
  /** Whether an approver's edited arguments reach the tool. */
  readonly editsSupported: boolean;
  readonly approval: ApprovalMode;
  /** One spec as the framework's tool (usually `integration.exportTool(spec, options)`). */
  export(spec: AnyToolSpec, options: ExportOptions): TExported | Promise<TExported>;
  /** Calls the exported tool the way the framework would, with a native call id. */
  call(exported: TExported, args: unknown, options: { callId: string }): TResult | Promise<TResult>;
  /** The tool's value out of a successful native result. */
  value(result: TResult): unknown;
  /** Whether a native result (or a thrown value) is the framework's error. */
  isError(result: unknown): boolean;
  /** The model-visible error kind of an error result or thrown error (default: read `code` or `{error:{kind}}`). */
  errorKind?(error: unknown): string | undefined;
  /** `approval: 'native'`: one call through the framework's gate with `decision` applied. */
  approveFlow?(
    exported: TExported,
    args: unknown,
    decision: ApprovalDecision,
    options: { callId: string },
  ): Promise<TResult | undefined>;
  /** Name, description and schema as the framework holds them. */
  describe(exported: TExported): { name: string; description: string; schema: unknown };
  /** The schema the framework should hold (default: `spec.jsonSchema()`). */
  expectedSchema?(spec: AnyToolSpec): unknown;
  /** The framework has no call ids of its own: C5 only checks that `ctx.callId` is set. */
  readonly noNativeCallIds?: boolean;
  /**
   * `false` for a bridge that cannot stop a running tool (it awaits a call it cannot cancel):
   * C4's timeout and C7 then check that the awaiter is released, not that the tool stopped.
   */
  readonly cancelsTool?: boolean;
  /** With `approval: 'native'`: the gate is built on the port given to `bindApproval`. */
  readonly nativeGateOnPort?: boolean;
  /** How often a decided `confirm` call asks the approval port (C6; default 1). */
  readonly portAsks?: number;
  /** Exports a whole registry (default: `integration.exportTools` or one `export` per target). */
  exportAll?(registry: ToolRegistry, options: ExportOptions): TExported[] | Promise<TExported[]>;
  /** Where C8 looks for the integration (e.g. `{ root }` of a fixture app). */
  readonly discovery?: DiscoveryOptions;
  setup?(): void | Promise<void>;
  teardown?(): void | Promise<void>;
}

export interface RunnerFactoryOptions {
  readonly hooks?: readonly ToolHook[];
  readonly approval?: ApprovalPort;
}

/** Builds the ToolRunner each check exports its tools with. */
export type RunnerFactory = (options: RunnerFactoryOptions) => ToolRunner;
