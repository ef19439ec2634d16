/**
 * Each deployed agent as an A2A server (A2A 1.0 over JSON-RPC, with the 0.3 method names too),
 * on one request at a time: the SDK's JSON-RPC transport handlers parse and encode, the
 * kernel's request handler (handler.ts) answers through the front door. The SDK's
 * DefaultRequestHandler is not used: it keeps tasks and event buses in the process and mints
 * task ids itself, where here a task is a stored run whose id the front door derives (so a
 * retried message lands on the same task) — see docs/protocol.md "A2A".
 */
import { type AgentCard, AgentCard as AgentCardFns, type AgentSkill } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentCard as KernelCard } from '../core/agent.js';
import { type KernelHandlerOptions, KernelRequestHandler } from './handler.js';

/** The path of an agent's card under its A2A URL (the SDK client's default). */
export const CARD_PATH = '.well-known/agent-card.json';

const V1_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask']);
const LEGACY_METHODS = new Set(['message/send', 'message/stream', 'tasks/get', 'tasks/cancel']);
/** Methods of the protocol this server answers with an error of its own (not -32601). */
const REFUSED_METHODS = new Set([
  'ListTasks',
  'SubscribeToTask',
  'tasks/resubscribe',
  'GetExtendedAgentCard',
  'agent/getAuthenticatedExtendedCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
]);

/** The agent's A2A card: its skills (declared, or one per tool), bearer auth, streaming. */
export function agentCardOf(card: KernelCard, url: string): AgentCard {
  const skills: AgentSkill[] = card.skills.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description ?? '',
    tags: s.tags ?? [],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  const iface = (protocolVersion: string) => ({
    url,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion,
  });
  return {
    name: card.name,
    description: card.description || `The agent "${card.name}".`,
    supportedInterfaces: [iface('1.0'), iface('0.3')],
    provider: undefined,
    version: card.version || '1.0.0',
    // Events stream from any runner (one that does not stream sends its reply at the end).
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description:
              "The deployment's token, as on its HTTP API: `Authorization: Bearer <jwt>`.",
            scheme: 'Bearer',
            bearerFormat: 'JWT',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills,
    signatures: [],
  };
}

/** The card as JSON (proto-JSON, the shape the SDK's card resolver reads). */
export function agentCardJson(card: KernelCard, url: string): unknown {
  return AgentCardFns.toJSON(agentCardOf(card, url));
}

export interface RpcError {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

/** One answer: a JSON body (with its HTTP status), or SSE `data:` payloads as they come. */
export type A2aAnswer =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'stream'; events: AsyncIterator<unknown>; first: unknown };

export function rpcError(
  id: string | number | null,
  code: number,
  message: string,
  status = 200,
): A2aAnswer {
  const body: RpcError = { jsonrpc: '2.0', id, error: { code, message } };
  return { kind: 'json', status, body };
}

export interface A2aRequest extends Omit<KernelHandlerOptions, 'card'> {
  readonly body: string;
  /** The `A2A-Version` header: 1.0, 0.3, or absent (the method name tells). */
  readonly version: string | undefined;
  readonly card: KernelCard;
  readonly url: string;
}

/**
 * Answers one JSON-RPC POST. The envelope is checked here first (the SDK's transport answers a
 * parse error and a bad envelope with -32602; JSON-RPC says -32700 and -32600), then the SDK's
 * transport of the version asked for routes it to the kernel's handler.
 */
export async function handleA2aRequest(request: A2aRequest): Promise<A2aAnswer> {
  let rpc: unknown;
  try {
    rpc = JSON.parse(request.body);
  } catch {
    return rpcError(null, -32700, 'Parse error: the body is not JSON.', 400);
  }
  const envelope = envelopeOf(rpc);
  if ('error' in envelope) return envelope.error;
  const { id, method, params } = envelope;
  if (REFUSED_METHODS.has(method)) {
    const message = method.includes('ush')
      ? 'Push notifications are not supported.'
      : `"${method}" is not supported: read a task with GetTask (tasks/get).`;
    return rpcError(id, method.includes('ush') ? -32003 : -32004, message);
  }
  const legacy = LEGACY_METHODS.has(method);
  if (!legacy && !V1_METHODS.has(method)) {
    return rpcError(id, -32601, `Method not found: "${method.slice(0, 100)}".`);
  }
  const version = request.version ?? (legacy ? '0.3' : '1.0');
  if (version !== '0.3' && version !== '1.0') {
    return rpcError(
      id,
      -32009,
      `A2A version "${version.slice(0, 20)}" is not supported: 1.0 or 0.3.`,
    );
  }
  if ((version === '0.3') !== legacy) {
    const names = legacy
      ? 'SendMessage, SendStreamingMessage, GetTask, CancelTask'
      : 'message/send, message/stream, tasks/get, tasks/cancel';
    return rpcError(id, -32601, `Method "${method}" is not of A2A ${version} (${names}).`);
  }
  if (
    params === undefined ||
    typeof params !== 'object' ||
    params === null ||
    Array.isArray(params)
  ) {
    return rpcError(id, -32602, 'Invalid params: params must be an object.');
  }
  const invalid = rawParamsProblem(method, params as Record<string, unknown>);
  if (invalid) return rpcError(id, -32602, `Invalid params: ${invalid}`);
  const handler = new KernelRequestHandler({
    ...request,
    card: agentCardOf(request.card, request.url),
  });
  const transport = legacy
    ? new LegacyJsonRpcTransportHandler(handler)
    : new JsonRpcTransportHandler(handler);
  const context = new ServerCallContext({ requestedVersion: version });
  const answer = await transport.handle(rpc as Record<string, unknown>, context);
  if (!(Symbol.asyncIterator in answer)) return { kind: 'json', status: 200, body: answer };
  // A refusal before the turn started is one JSON-RPC error, not a stream.
  const events = answer[Symbol.asyncIterator]();
  try {
    const first = await events.next();
    if (first.done) return rpcError(id, -32603, 'Internal error: the stream ended early.');
    return { kind: 'stream', events, first: first.value };
  } catch (err) {
    const error = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err)
      : JsonRpcTransportHandler.mapToJSONRPCError(err);
    return { kind: 'json', status: 200, body: { jsonrpc: '2.0', id, error } };
  }
}

type Envelope =
  | { id: string | number | null; method: string; params: unknown }
  | { error: A2aAnswer };

function envelopeOf(rpc: unknown): Envelope {
  const invalid = (message: string, id: string | number | null = null) => ({
    error: rpcError(id, -32600, `Invalid request: ${message}`, 400),
  });
  if (typeof rpc !== 'object' || rpc === null || Array.isArray(rpc)) {
    return invalid(Array.isArray(rpc) ? 'batches are not supported.' : 'not a JSON-RPC object.');
  }
  const { jsonrpc, id, method, params } = rpc as Record<string, unknown>;
  const goodId =
    id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (!goodId) return invalid('id must be a string, an integer or null.');
  const rid = id as string | number | null;
  if (typeof id === 'string' && id.length > 200) return invalid('id is over 200 characters.');
  if (jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0".', rid);
  if (typeof method !== 'string' || method.length === 0)
    return invalid('method must be a string.', rid);
  return { id: rid, method, params };
}

/**
 * What the SDK's lenient proto-JSON reader would coerce (a number for a string, an unknown
 * role as UNRECOGNIZED): refused here, before it can be misread.
 */
function rawParamsProblem(method: string, params: Record<string, unknown>): string | undefined {
  if (
    method === 'GetTask' ||
    method === 'CancelTask' ||
    method === 'tasks/get' ||
    method === 'tasks/cancel'
  ) {
    if (typeof params.id !== 'string' || params.id.length === 0)
      return 'id must be a non-empty string.';
    if (params.id.length > 300) return 'id is over 300 characters.';
    const length = params.historyLength;
    if (length !== undefined && (!Number.isInteger(length) || (length as number) < 0)) {
      return 'historyLength must be a whole number from 0.';
    }
    return undefined;
  }
  const message = params.message as Record<string, unknown> | undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return 'message must be an object.';
  }
  for (const key of ['messageId', 'contextId', 'taskId'] as const) {
    if (message[key] !== undefined && typeof message[key] !== 'string')
      return `message.${key} must be a string.`;
  }
  if (typeof message.messageId !== 'string' || message.messageId.length === 0)
    return 'message.messageId is required.';
  if (typeof message.role !== 'string') return 'message.role must be a string.';
  if (!Array.isArray(message.parts)) return 'message.parts must be a list.';
  for (const [i, part] of message.parts.entries()) {
    if (typeof part !== 'object' || part === null || Array.isArray(part))
      return `message.parts.${i} must be an object.`;
  }
  return undefined;
}
