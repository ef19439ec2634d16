import { type JSONSchema7, jsonSchema, type Tool, type ToolSet, tool } from 'ai';
import { tryToolContext } from '../../core/tool-context.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import { markExecutorTool } from './tool-journal.js';

/** An AI SDK tool with the name it is registered under (the SDK keys tools by name). */
export type AiSdkTool = Tool<unknown, unknown> & { readonly name: string };

/** The native tool's options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = ['name', 'description', 'inputSchema', 'needsApproval', 'execute'];

/**
 * ToolSpec → AI SDK `tool()`. Every call goes through the executor with the SDK's `toolCallId`
 * as `ctx.callId`. A `confirm` tool uses the SDK's `needsApproval` gate (the run pauses with a
 * tool-approval-request) unless an approval port was bound before export. The SDK does not
 * validate (our JSON Schema has no validator), so the model reads our invalid-arguments errors;
 * failures are returned as the model-visible error, never the raw exception text.
 */
export class AiSdkIntegration extends IntegrationBase<AiSdkTool> {
  readonly name = 'ai-sdk';
  readonly requires = ['ai'] as const;
  readonly extra = 'ai';
  protected override readonly callIdFields = ['toolCallId'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): AiSdkTool {
    const nativeGate = spec.confirm && !this.approvalPort;
    const native = tool<unknown, unknown>({
      ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
      description: spec.description,
      inputSchema: jsonSchema(spec.jsonSchema() as JSONSchema7),
      needsApproval: nativeGate,
      execute: (args, call) =>
        this.runBound(spec, args, call, options, {
          // The SDK executes a gated call only once it was approved.
          ...(nativeGate ? { approval: { status: 'approved' } } : {}),
          ...(call.abortSignal ? { signal: withRunSignal(call.abortSignal) } : {}),
        }),
    });
    return markExecutorTool(Object.assign(native, { name: spec.name }), spec.effects);
  }
}

/** The SDK's signal together with the run's: either one cancels the call. */
function withRunSignal(sdk: AbortSignal): AbortSignal {
  const run = tryToolContext()?.signal;
  return run ? AbortSignal.any([run, sdk]) : sdk;
}

/** Exported tools as the record `streamText({ tools })` takes. */
export function aiSdkToolSet(tools: readonly AiSdkTool[]): ToolSet {
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

/** What discovery loads (`getIntegration('ai-sdk')`). */
export const INTEGRATION = new AiSdkIntegration();
