import { type ToolInputParameters, tool } from '@openai/agents';
import { type ToolContext, tryToolContext } from '../../core/tool-context.js';
import { isAbortError, modelVisibleError } from '../../tools/errors.js';
import { asksToRunAgain } from '../../tools/guard.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import type { NativeFunctionTool } from './native.js';
import { markExecutorTool } from './tool-tracing.js';

export type OpenAITool = NativeFunctionTool;
/** The `tool()` options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = [
  'name',
  'description',
  'parameters',
  'strict',
  'needsApproval',
  'execute',
  'errorFunction',
];
/** Our JSON Schema (an object schema) as the SDK's non-strict parameters. */
type Parameters = Extract<ToolInputParameters, { additionalProperties: true }>;

/**
 * ToolSpec → `@openai/agents` `tool()`. Every call goes through the executor; the SDK's
 * `details.toolCall.callId` becomes `ctx.callId`. A `confirm` tool uses the SDK's own approval
 * gate (the run pauses with an interruption) unless an approval port was bound before export,
 * in which case the executor asks that port in-process.
 */
export class OpenAIIntegration extends IntegrationBase<OpenAITool> {
  readonly name = 'openai';
  readonly requires = ['@openai/agents'] as const;
  readonly extra = '@openai/agents';
  protected override readonly callIdFields = ['toolCall.callId'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): OpenAITool {
    const nativeGate = spec.confirm && !this.approvalPort;
    const call = (args: unknown, details: unknown): Promise<unknown> => {
      const ctx = this.bindContext(details);
      const sdkSignal = (details as { signal?: AbortSignal } | undefined)?.signal;
      // The SDK calls execute for a gated tool only once a human approved it; on a resumed
      // run the decision itself (edited arguments included) goes to the ledger.
      const decided = ctx.callId ? tryToolContext()?.decisions?.[ctx.callId] : undefined;
      const overrides: Partial<ToolContext> = {
        ...(nativeGate ? { approval: decided ?? { status: 'approved' } } : {}),
        ...(sdkSignal ? { signal: AbortSignal.any([ctx.signal, sdkSignal]) } : {}),
      };
      return this.run(spec, args, details, options, overrides);
    };
    return markExecutorTool(
      tool({
        ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
        name: spec.name,
        description: spec.description,
        // Our JSON Schema, not strict mode: validation is the executor's, with our error kinds.
        parameters: spec.jsonSchema() as Parameters,
        strict: false,
        // A call an earlier attempt left unfinished asks again, through the SDK's own gate.
        needsApproval: async (_runContext, _input, callId) =>
          nativeGate || asksToRunAgain(callId, spec.effects),
        execute: (args, _runContext, details) => call(args, details),
        errorFunction: async (_runContext, error, details) => {
          if (isAbortError(error)) throw error;
          if ((error as Error | undefined)?.name === 'InvalidToolInputError') {
            // The SDK could not parse the arguments as JSON: let the executor refuse and record
            // the raw text, so the model reads our invalid-arguments error.
            const raw = (details as { toolCall?: { arguments?: string } } | undefined)?.toolCall;
            try {
              await call(raw?.arguments ?? '', details);
            } catch (err) {
              if (isAbortError(err)) throw err;
              return visibleError(err);
            }
          }
          return visibleError(error);
        },
      }) as OpenAITool,
    );
  }
}

/**
 * Our error object as the tool's output: the SDK types an error function's result as a string,
 * but hands the model whatever it returns (the model reads our `{ error: { kind } }`).
 */
function visibleError(err: unknown): string {
  return modelVisibleError(err) as unknown as string;
}

/** What discovery loads (`getIntegration('openai')`). */
export const INTEGRATION = new OpenAIIntegration();
