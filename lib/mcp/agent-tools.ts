/**
 * The opted-in agents' own tools on `/mcp` (MCP_AGENT_TOOLS): `<agent>__<tool>`, the ToolSpec's
 * JSON Schema as `inputSchema`, annotations from its declared effects. A call runs through the
 * use case of lib/mcp/agent-tool-calls.ts (the agent's Executor, as the calling principal); bad
 * arguments are MCP's -32602, a failure of the tool itself an `isError` result (MCP's tool error).
 */
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AgentKernelError } from '../core/errors.js';
import { modelVisibleError, ToolArgsInvalid, ToolLayerError } from '../tools/errors.js';
import type { AgentToolCall, ExposedTool } from './agent-tool-calls.js';
import { annotationsOf, type ExtraTools, type McpErrorData } from './server.js';

export function agentToolsServed(
  exposed: readonly ExposedTool[],
  principal: string,
  call: (call: AgentToolCall) => Promise<unknown>,
): ExtraTools {
  const byName = new Map(exposed.map((tool) => [tool.name, tool]));
  return {
    tools: exposed.map(toolOf),
    call(name, args, key) {
      const tool = byName.get(name);
      if (!tool) return undefined;
      return callOne(call, { principal, tool, args, ...(key === undefined ? {} : { key }) });
    },
  };
}

function toolOf({ name, agent, spec }: ExposedTool): Tool {
  return {
    name,
    description: `${spec.description} (a tool of the agent "${agent}")`,
    inputSchema: { type: 'object', ...spec.jsonSchema() } as Tool['inputSchema'],
    annotations: annotationsOf(spec.effects),
  };
}

async function callOne(
  call: (call: AgentToolCall) => Promise<unknown>,
  request: AgentToolCall,
): Promise<CallToolResult> {
  let result: unknown;
  try {
    result = await call(request);
  } catch (err) {
    if (err instanceof ToolArgsInvalid) {
      throw new McpError(ErrorCode.InvalidParams, err.message, {
        code: 'invalid-request',
      } satisfies McpErrorData);
    }
    // The kernel's refusals (a reused or in-progress key, …) are JSON-RPC errors; the tool's own
    // failure (its error, a timeout, a denial) is a tool result the model or client can read.
    if (err instanceof AgentKernelError && !(err instanceof ToolLayerError)) throw err;
    const visible = modelVisibleError(err);
    return {
      isError: true,
      content: [{ type: 'text', text: `${visible.error.kind}: ${visible.error.message}` }],
      structuredContent: { ...visible },
    };
  }
  const structured =
    typeof result === 'object' && result !== null && !Array.isArray(result)
      ? { structuredContent: { ...(result as Record<string, unknown>) } }
      : {};
  const text = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  return { content: [{ type: 'text', text }], ...structured };
}
