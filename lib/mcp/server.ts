/**
 * The deployment's agents as an MCP server, in the current specification's stateless streamable
 * HTTP mode: a server and a transport per request, JSON responses, no session id, no standalone
 * SSE stream. Every call goes through the front door (token, ownership, input gate,
 * idempotency, quotas); a pause is a typed result naming the `resume_run` call that answers it.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  type CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { FrontDoor } from '../app/front-door.js';
import { checkId } from '../app/validation.js';
import { AgentKernelError } from '../core/errors.js';
import type { ToolEffects } from '../core/journal.js';
import type { Reply } from '../core/requests.js';
import { DecisionsSchema } from '../core/resume.js';
import { RunInputSchema } from '../transport/protocol.js';

/** The `_meta` key a client sets to make a call idempotent (the HTTP API's Idempotency-Key). */
export const MCP_IDEMPOTENCY_META_KEY = 'io.agent-kernel/idempotency-key';

/** The kernel's code of a refused call, in a JSON-RPC error's `data`. */
export interface McpErrorData {
  readonly code: string;
}

/** MCP's tool annotations from a ToolSpec's declared effects (undeclared: side-effecting). */
export function annotationsOf(effects: ToolEffects | undefined): Tool['annotations'] {
  if (effects?.readOnly) return { readOnlyHint: true, idempotentHint: true };
  return {
    readOnlyHint: false,
    destructiveHint: effects?.idempotent !== true,
    idempotentHint: effects?.idempotent === true,
  };
}

const LooseCallSchema = z.object({
  method: z.literal('tools/call'),
  params: z.unknown().default({}),
});
const RESUME_TOOL = 'resume_run';
const READ_TOOL = 'read_run';
/** The server's own tools' names: an agent's tool never shadows one. */
export const SERVER_TOOL_NAMES: ReadonlySet<string> = new Set([RESUME_TOOL, READ_TOOL]);
const Id = z.string().min(1).max(200);
const AgentArgs = z.strictObject({ message: RunInputSchema, sessionId: Id.optional() });
const ResumeArgs = z.strictObject({ sessionId: Id, runId: Id, decisions: DecisionsSchema });
const ReadArgs = z.strictObject({ sessionId: Id, runId: Id });

interface AgentEntry {
  readonly name: string;
  readonly description?: string;
  /** The agent's tools' effects, when known: an agent of read-only tools is read-only. */
  readonly effects?: ToolEffects;
}

function agentTool(agent: AgentEntry): Tool {
  return {
    name: agent.name,
    description: agent.description || `Runs the agent "${agent.name}" for one turn.`,
    inputSchema: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'What to ask the agent.' },
        sessionId: { type: 'string', description: 'Continue this session (yours) instead.' },
      },
      required: ['message'],
      additionalProperties: false,
    },
    annotations: { ...annotationsOf(agent.effects), openWorldHint: true },
  };
}

const SERVER_TOOLS: Tool[] = [
  {
    name: RESUME_TOOL,
    description:
      'Answers a paused run: one decision per interruption of the paused result (approved or denied).',
    inputSchema: {
      type: 'object',
      properties: {
        sessionId: { type: 'string' },
        runId: { type: 'string' },
        decisions: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              status: { type: 'string', enum: ['approved', 'denied'] },
              message: { type: 'string' },
            },
            required: ['id', 'status'],
          },
        },
      },
      required: ['sessionId', 'runId', 'decisions'],
      additionalProperties: false,
    },
    // Resuming twice is refused (run-already-resumed): no second effect.
    annotations: annotationsOf({ idempotent: true }),
  },
  {
    name: READ_TOOL,
    description: 'Reads a run of yours: its status, reply or interruptions.',
    inputSchema: {
      type: 'object',
      properties: { sessionId: { type: 'string' }, runId: { type: 'string' } },
      required: ['sessionId', 'runId'],
      additionalProperties: false,
    },
    annotations: annotationsOf({ readOnly: true }),
  },
];

/** JSON-RPC error codes of the kernel's refusals (MCP uses -32002 for "not found"). */
function rpcErrorOf(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (!(err instanceof AgentKernelError)) {
    return new McpError(ErrorCode.InternalError, 'Internal error', { code: 'internal-error' });
  }
  const notFound = ['not-found', 'agent-not-found', 'paused-run-not-found'].includes(err.code);
  const invalid = ['invalid-request', 'invalid-message', 'too-large', 'bad-json'].includes(
    err.code,
  );
  const code = notFound ? -32002 : invalid ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
  return new McpError(code, err.message, { code: err.code } satisfies McpErrorData);
}

function parseArgs<T>(schema: z.ZodType<T>, tool: string, args: unknown): T {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.join('.') || '(root)';
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid arguments for tool "${tool}" at ${at}: ${issue?.message}`,
    { code: 'invalid-request' } satisfies McpErrorData,
  );
}

/** A reply as a tool result: text for any client, the reply itself as structured content. */
function resultOf(reply: Reply): CallToolResult {
  if (reply.status === 'completed') {
    return { content: [{ type: 'text', text: reply.text }], structuredContent: { ...reply } };
  }
  const decisions = reply.interruptions.map((i) => ({ id: i.id, status: 'approved' }));
  const resume = {
    tool: RESUME_TOOL,
    arguments: { sessionId: reply.sessionId, runId: reply.runId, decisions },
  };
  const asked = reply.interruptions
    .map((i) => (i.toolName ? `${i.toolName} ${JSON.stringify(i.arguments ?? {})}` : i.message))
    .join('; ');
  const text = `The run paused for a decision (${asked}). Call ${RESUME_TOOL} with the run's sessionId, runId and a decision per interruption (approved or denied).`;
  return { content: [{ type: 'text', text }], structuredContent: { ...reply, resume } };
}

/** More tools (the opted-in agents' own, lib/mcp/agent-tools.ts): undefined from `call` if not one. */
export interface ExtraTools {
  readonly tools: readonly Tool[];
  call(name: string, args: unknown, key: string | undefined): Promise<CallToolResult> | undefined;
}

export interface McpRequestOptions {
  readonly door: FrontDoor;
  readonly principal: unknown;
  readonly agents: readonly AgentEntry[];
  readonly extra?: ExtraTools;
}

function serverFor({ door, principal, agents, extra }: McpRequestOptions): Server {
  const server = new Server(
    { name: 'agent-kernel', version: '1' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...agents.map(agentTool), ...SERVER_TOOLS, ...(extra?.tools ?? [])],
  }));
  // A loose schema, so the SDK's own check of tools/call answers bad params with -32602
  // (with the strict one, the parse fails first and the client reads an internal error).
  server.setRequestHandler(LooseCallSchema, async (loose) => {
    const request = loose as unknown as z.output<typeof CallToolRequestSchema>;
    const { name, arguments: args, _meta } = request.params;
    const key = _meta?.[MCP_IDEMPOTENCY_META_KEY];
    const requestId = key === undefined ? {} : { requestId: key as string };
    try {
      // As the HTTP Idempotency-Key: the front door's id rule (checkId), a non-string included.
      if (key !== undefined) checkId('idempotency key', key);
      if (name === RESUME_TOOL) {
        const { sessionId, runId, decisions } = parseArgs(ResumeArgs, name, args);
        return resultOf(
          await door.resumeNow({ principal, ...requestId, sessionId, runId, decisions }),
        );
      }
      if (name === READ_TOOL) {
        const { sessionId, runId } = parseArgs(ReadArgs, name, args);
        const run = (await door.readRun(principal, sessionId, runId)) as Record<string, unknown>;
        return { content: [{ type: 'text', text: JSON.stringify(run) }], structuredContent: run };
      }
      const extraCall = extra?.call(name, args, key as string | undefined);
      if (extraCall) return await extraCall;
      if (!agents.some((a) => a.name === name)) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 100)}"`, {
          code: 'agent-not-found',
        });
      }
      const { message, sessionId } = parseArgs(AgentArgs, name, args);
      const reply = await door.runNow({
        principal,
        ...requestId,
        agent: name,
        ...(sessionId ? { sessionId } : {}),
        input: message,
      });
      return resultOf(reply);
    } catch (err) {
      throw rpcErrorOf(err);
    }
  });
  return server;
}

/** Answers one MCP request (a web-standard Request, as the SDK's transport takes it). */
export async function handleMcpRequest(
  request: Request,
  options: McpRequestOptions,
): Promise<Response> {
  if (request.method !== 'POST') {
    // Stateless: no standalone SSE stream to GET and no session to DELETE.
    return jsonRpcError(405, ErrorCode.ConnectionClosed, 'Method not allowed: POST only', {
      allow: 'POST',
    });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const server = serverFor(options);
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/** An HTTP error in the JSON-RPC error shape (refusals before any JSON-RPC message is read). */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body = { jsonrpc: '2.0', id: null, error: { code, message } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
