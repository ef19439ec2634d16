import type { FrontDoor } from '../../app/front-door.js';
import type { RawMessage } from '../../transport/parse.js';
import type { Deployment } from '../wiring/deployment.js';
import type { HttpEvent } from './http-api.js';
import { bodyOf } from './http-body.js';
import { frontDoorWith, type SseResponse, streamingTurns } from './stream-turns.js';

/** A request body past this is refused before it is parsed (the input gate's own limits follow). */
const MAX_MCP_BODY_BYTES = 1024 * 1024;

/**
 * `/mcp` on the streaming function: the MCP server (lib/mcp/server.ts, loaded on the first MCP
 * request only, so a deployment without the optional SDK still serves its other routes). The
 * principal is the one the stream handler's authorizer read; no principal is a 401 with a
 * JSON-RPC error body and a Bearer challenge, as MCP's authorization section asks.
 */
export async function mcpRoute(
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
  out: SseResponse,
  redact: (text: string) => string,
): Promise<void> {
  const { handleMcpRequest, jsonRpcError } = await import('../../mcp/server.js');
  const body = bodyOf(event);
  let response: Response;
  if (principal === undefined) {
    response = jsonRpcError(401, -32001, 'Unauthorized: send `Authorization: Bearer <token>`.', {
      'www-authenticate': 'Bearer',
    });
  } else if (Buffer.byteLength(body) > MAX_MCP_BODY_BYTES) {
    response = jsonRpcError(413, -32600, `The request is larger than ${MAX_MCP_BODY_BYTES} bytes.`);
  } else {
    // Events are not streamed here: a tool call's result is its reply (JSON response mode).
    const discard = () => ({ push: async () => undefined, close: async () => undefined });
    const door = frontDoorWith(deployed, streamingTurns(deployed, discard), redact);
    const agents = deployed.runtime.agents.map((a) => ({
      name: a.name,
      description: a.description,
    }));
    const extra = await agentToolsOf(deployed, door, principal, agents);
    const options = { door, principal, agents, ...(extra ? { extra } : {}) };
    response = await handleMcpRequest(requestOf(event, body), options);
  }
  const headers = Object.fromEntries(response.headers.entries());
  // A whole response at once: SseResponse.error writes any status, headers and body.
  out.error({ statusCode: response.status, headers, body: await response.text() });
}

/** The opted-in agents' own tools (MCP_AGENT_TOOLS), for a principal the door accepts. */
async function agentToolsOf(
  deployed: Deployment,
  door: FrontDoor,
  principal: unknown,
  agents: readonly { name: string }[],
) {
  const optIn = deployed.config.MCP_AGENT_TOOLS;
  if (!optIn || !deployed.agentTools) return undefined;
  let who: string;
  try {
    who = door.policy.principal(principal);
  } catch {
    return undefined; // the door refuses this principal's every call anyway
  }
  const [{ agentToolsServed }, { agentToolCaller, exposedTools }, { SERVER_TOOL_NAMES }] =
    await Promise.all([
      import('../../mcp/agent-tools.js'),
      import('../../mcp/agent-tool-calls.js'),
      import('../../mcp/server.js'),
    ]);
  const reserved = new Set([...SERVER_TOOL_NAMES, ...agents.map((a) => a.name)]);
  const exposed = exposedTools(deployed.agentTools, optIn, reserved);
  return agentToolsServed(exposed, who, agentToolCaller(deployed.idempotency));
}

function requestOf(event: HttpEvent, body: RawMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  const method = event.requestContext.http.method;
  const init: RequestInit = { method, headers };
  if (method !== 'GET' && method !== 'HEAD' && body.length > 0) init.body = body as string;
  return new Request(`https://${event.requestContext.domainName ?? 'localhost'}/mcp`, init);
}
