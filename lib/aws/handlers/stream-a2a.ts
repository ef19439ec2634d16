import { NotFound } from '../../app/errors.js';
import type { StreamEvent } from '../../core/events.js';
import type { Deployment } from '../wiring/deployment.js';
import type { HttpEvent } from './http-api.js';
import { bodyOf } from './http-body.js';
import { frontDoorWith, type SseResponse, streamingTurns } from './stream-turns.js';

/** A request body past this is refused before it is parsed (the input gate's own limits follow). */
const MAX_A2A_BODY_BYTES = 1024 * 1024;

/**
 * `/a2a/{agent}` on the streaming function: each agent as an A2A server (lib/a2a, loaded on the
 * first A2A request only, so a deployment without the optional SDK serves its other routes).
 * `GET /a2a/{agent}/.well-known/agent-card.json` is the agent's card, public as A2A discovery
 * is (it names the bearer scheme a client needs); `POST /a2a/{agent}` is JSON-RPC, with the
 * principal the stream handler's authorizer read, and `message/stream` answered as SSE.
 */
export async function a2aRoute(
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
  out: SseResponse,
  redact: (text: string) => string,
  parts: readonly string[],
): Promise<void> {
  const a2a = await import('../../a2a/server.js');
  const [, name = '', ...rest] = parts.map(decodeURIComponent);
  const agent = deployed.runtime.agents.find((a) => a.name === name);
  const method = event.requestContext.http.method;
  const card = rest.join('/') === a2a.CARD_PATH;
  if (!agent || (rest.length > 0 && !card) || (card ? method !== 'GET' : method !== 'POST')) {
    throw new NotFound(`Route ${method} ${event.rawPath.slice(0, 200)}`);
  }
  const url = `${baseUrlOf(event)}/a2a/${encodeURIComponent(agent.name)}/`;
  if (card) return json(out, 200, a2a.agentCardJson(agent.card(), url));
  const body = bodyOf(event);
  if (principal === undefined) {
    const refused = a2a.rpcError(
      null,
      -32600,
      'Unauthorized: send `Authorization: Bearer <token>`.',
      401,
    );
    return json(out, 401, (refused as { body: unknown }).body, { 'www-authenticate': 'Bearer' });
  }
  if (Buffer.byteLength(body) > MAX_A2A_BODY_BYTES) {
    const big = a2a.rpcError(
      null,
      -32600,
      `The request is larger than ${MAX_A2A_BODY_BYTES} bytes.`,
    );
    return json(out, 413, (big as { body: unknown }).body);
  }
  const contentType = (event.headers?.['content-type'] ?? 'application/json').toLowerCase();
  if (!contentType.includes('json')) {
    const wrong = a2a.rpcError(
      null,
      -32600,
      'The request must be `Content-Type: application/json`.',
    );
    return json(out, 415, (wrong as { body: unknown }).body);
  }
  // Events go to the A2A stream only (as MCP's): the run record and the reply are stored.
  const door = (events?: (run: { sessionId: string; runId: string }, e: StreamEvent) => void) =>
    frontDoorWith(
      deployed,
      streamingTurns(deployed, (sessionId, runId) => ({
        push: async (e) => events?.({ sessionId, runId }, e),
        close: async () => undefined,
      })),
      redact,
    );
  const answer = await a2a.handleA2aRequest({
    body: typeof body === 'string' ? body : Buffer.from(body).toString('utf8'),
    version: event.headers?.['a2a-version'],
    agent: agent.name,
    card: agent.card(),
    url,
    principal,
    door,
  });
  if (answer.kind === 'json') return json(out, answer.status, answer.body);
  // A client that goes away does not stop the turn: it finishes and is stored (tasks/get).
  const { events, first } = answer;
  out.frame(`data: ${JSON.stringify(first)}\n\n`);
  for (let next = await events.next(); !next.done; next = await events.next()) {
    out.frame(`data: ${JSON.stringify(next.value)}\n\n`);
  }
}

function json(
  out: SseResponse,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  out.error({
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The Function URL's own address (locally, the Host the client used). */
function baseUrlOf(event: HttpEvent): string {
  const domain = event.requestContext.domainName;
  if (domain) return `https://${domain}`;
  return `http://${event.headers?.host ?? 'localhost'}`;
}
