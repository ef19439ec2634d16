import { type Context, FunctionTool, type RunAsyncToolRequest } from '@google/adk';
import { tryToolContext } from '../../core/tool-context.js';
import { ApprovalDenied, modelVisibleError } from '../../tools/errors.js';
import { asksToRunAgain } from '../../tools/guard.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import { markExecutorTool } from './tool-journal.js';

type Declaration = ReturnType<FunctionTool['_getDeclaration']>;

/**
 * An ADK `FunctionTool` declared with our JSON Schema (`parametersJsonSchema`): ADK's own
 * `parameters` take a zod object or Gemini's `Schema` dialect, and ours is neither. ADK does not
 * validate such arguments: the executor does, and the model reads its invalid-arguments errors.
 */
type SpecToolOptions = Omit<ConstructorParameters<typeof FunctionTool<undefined>>[0], 'parameters'>;

export class AdkSpecTool extends FunctionTool {
  readonly #schema: unknown;
  /** Cancellations seen by `execute`, by call context: ADK's `runAsync` rewraps every error. */
  readonly #aborted = new WeakMap<object, unknown>();

  constructor(options: SpecToolOptions & { schema: unknown }) {
    const { schema, execute, ...rest } = options;
    super({
      ...rest,
      execute: async (args, context) => {
        try {
          return await execute(args, context);
        } catch (err) {
          if (context && isAbortError(err)) this.#aborted.set(context, err);
          throw err;
        }
      },
    });
    this.#schema = schema;
  }

  /**
   * Cancellation propagates as itself (ADK would wrap it in a plain Error). A declined
   * confirmation answers with the approver's message (ADK's own answer drops it).
   */
  override async runAsync(request: RunAsyncToolRequest): Promise<unknown> {
    const confirmation = request.toolContext?.toolConfirmation;
    if (confirmation && !confirmation.confirmed) {
      return modelVisibleError(new ApprovalDenied(this.name, confirmation.hint || undefined));
    }
    try {
      return await super.runAsync(request);
    } catch (err) {
      throw this.#aborted.get(request.toolContext) ?? err;
    }
  }

  override _getDeclaration(): Declaration {
    return { name: this.name, description: this.description, parametersJsonSchema: this.#schema };
  }
}

/** The native tool's options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = ['name', 'description', 'schema', 'requireConfirmation', 'execute'];

/**
 * ToolSpec → ADK tool. Every call goes through the executor with ADK's `functionCallId` as
 * `ctx.callId`. A `confirm` tool uses ADK's own gate (`requireConfirmation`: the run pauses
 * with a confirmation request) unless an approval port was bound before export. ADK has no
 * error channel of its own beyond a thrown message, so failures are returned as the
 * model-visible error.
 */
export class AdkIntegration extends IntegrationBase<AdkSpecTool> {
  readonly name = 'adk';
  readonly requires = ['@google/adk'] as const;
  readonly extra = '@google/adk';
  protected override readonly callIdFields = ['functionCallId'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): AdkSpecTool {
    const nativeGate = spec.confirm && !this.approvalPort;
    const tool = new AdkSpecTool({
      ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
      name: spec.name,
      description: spec.description,
      schema: spec.jsonSchema(),
      // A call an earlier attempt left unfinished asks again, at ADK's own gate.
      requireConfirmation: (_args: unknown, context?: Context) =>
        nativeGate || asksToRunAgain(context?.functionCallId, spec.effects),
      execute: (args: unknown, context?: Context) =>
        this.runBound(spec, args, context, options, {
          // ADK runs a gated call only once it was confirmed.
          ...(nativeGate ? { approval: { status: 'approved' } } : {}),
          ...(context?.abortSignal ? { signal: withRunSignal(context.abortSignal) } : {}),
        }),
    });
    return markExecutorTool(tool);
  }
}

/** ADK's signal together with the run's: either one cancels the call. */
function withRunSignal(adk: AbortSignal): AbortSignal {
  const run = tryToolContext()?.signal;
  return run ? AbortSignal.any([run, adk]) : adk;
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** What discovery loads (`getIntegration('adk')`). */
export const INTEGRATION = new AdkIntegration();
