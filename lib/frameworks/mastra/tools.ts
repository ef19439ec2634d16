import { createTool } from '@mastra/core/tools';
import { tryToolContext } from '../../core/tool-context.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import { markExecutorTool } from './tool-journal.js';

/** A Mastra tool as `createTool` makes it (its `id` is the name the model calls). */
export type MastraTool = ReturnType<typeof createTool>;

/** The execution context Mastra hands a tool: the model's call id under `agent.toolCallId`. */
interface MastraToolContext {
  readonly agent?: { readonly toolCallId?: string };
  readonly abortSignal?: AbortSignal;
}

/** The native tool's options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = ['id', 'description', 'inputSchema', 'requireApproval', 'execute'];

/**
 * ToolSpec → Mastra `createTool`. Every call goes through the executor with the model's tool call
 * id as `ctx.callId`. A `confirm` tool uses Mastra's own gate (`requireApproval`: the run suspends
 * with a tool-call-approval) unless an approval port was bound before export. The schema is a
 * Standard Schema that hands Mastra our JSON Schema and validates nothing, so the executor's
 * `invalid-arguments` error is what the model reads; failures are returned as the model-visible
 * error, never the raw exception text.
 */
export class MastraIntegration extends IntegrationBase<MastraTool> {
  readonly name = 'mastra';
  readonly requires = ['@mastra/core'] as const;
  readonly extra = '@mastra/core';
  protected override readonly callIdFields = ['agent.toolCallId', 'toolCallId'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): MastraTool {
    const nativeGate = spec.confirm && !this.approvalPort;
    const tool = createTool({
      ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
      id: spec.name,
      description: spec.description,
      inputSchema: jsonOnlySchema(spec.jsonSchema()),
      requireApproval: nativeGate,
      execute: (args: unknown, call: unknown) => {
        const signal = (call as MastraToolContext | undefined)?.abortSignal;
        return this.runBound(spec, args, call, options, {
          // Mastra executes a gated call only once it was approved.
          ...(nativeGate ? { approval: { status: 'approved' } } : {}),
          ...(signal ? { signal: withRunSignal(signal) } : {}),
        });
      },
    } as Parameters<typeof createTool>[0]);
    return markExecutorTool(tool, spec.effects);
  }
}

/** A Standard Schema carrying a JSON Schema and accepting any value (the executor validates). */
export function jsonOnlySchema(schema: Record<string, unknown>) {
  const json = () => ({ ...schema });
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'agent-kernel',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: json, output: json },
    },
  };
}

/** Mastra's signal together with the run's: either one cancels the call. */
function withRunSignal(mastra: AbortSignal): AbortSignal {
  const run = tryToolContext()?.signal;
  return run ? AbortSignal.any([run, mastra]) : mastra;
}

/** Exported tools as the record `new Agent({ tools })` takes, keyed by name. */
export function mastraToolSet(tools: readonly MastraTool[]): Record<string, MastraTool> {
  return Object.fromEntries(tools.map((t) => [t.id, t]));
}

/** What discovery loads (`getIntegration('mastra')`). */
export const INTEGRATION = new MastraIntegration();
