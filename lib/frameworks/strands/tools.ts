import {
  FunctionTool,
  type JSONSchema,
  type JSONValue,
  type ToolContext,
} from '@strands-agents/sdk';
import { tryToolContext } from '../../core/tool-context.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import { markExecutorTool, withApproval } from './tool-journal.js';

/** The native tool's options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = ['name', 'description', 'inputSchema', 'callback'];

/**
 * ToolSpec → Strands `FunctionTool`. Every call goes through the executor with Strands'
 * `toolUseId` as `ctx.callId`. A `confirm` tool waits at the runner's approval gate (a
 * `BeforeToolCallEvent` interrupt, so the run pauses) unless an approval port was bound before
 * export. Failures are returned as the model-visible error, never the raw exception text.
 */
export class StrandsIntegration extends IntegrationBase<FunctionTool> {
  readonly name = 'strands';
  readonly requires = ['@strands-agents/sdk'] as const;
  readonly extra = '@strands-agents/sdk';
  protected override readonly callIdFields = ['toolUse.toolUseId'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): FunctionTool {
    const nativeGate = spec.confirm && !this.approvalPort;
    const native = new FunctionTool({
      ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
      name: spec.name,
      description: spec.description,
      inputSchema: spec.jsonSchema() as JSONSchema,
      callback: async (input: unknown, call: ToolContext) =>
        (await this.runBound(spec, input, call, options, {
          // The gate lets a call through only once a person approved it.
          ...(nativeGate ? { approval: { status: 'approved' } } : {}),
          ...(call?.cancelSignal ? { signal: withRunSignal(call.cancelSignal) } : {}),
        })) as JSONValue,
    });
    markExecutorTool(native, spec.effects);
    return nativeGate ? withApproval(native) : native;
  }
}

/** Strands' signal together with the run's: either one cancels the call. */
function withRunSignal(strands: AbortSignal): AbortSignal {
  const run = tryToolContext()?.signal;
  return run ? AbortSignal.any([run, strands]) : strands;
}

/** What discovery loads (`getIntegration('strands')`). */
export const INTEGRATION = new StrandsIntegration();
