import type { ServerResponse } from 'node:http';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { isGone, nextTick, sendJson } from './http.js';
import type { ScriptedError } from './script.js';
import { chunkText, hexId, type ResolvedTurn } from './turn.js';

/**
 * Amazon Bedrock's Converse API (`POST /model/{modelId}/converse` and `/converse-stream`), as
 * the AWS SDK's `BedrockRuntimeClient` speaks it: JSON in, JSON or an AWS event stream out
 * (binary frames with CRCs, `application/vnd.amazon.eventstream`), errors as Bedrock's
 * exceptions (`x-amzn-errortype`). The server does not check SigV4 signatures.
 */

type Json = Record<string, unknown>;

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

/** The model id and whether the answer streams, for a Converse path; undefined otherwise. */
export function converseRoute(path: string): { modelId: string; stream: boolean } | undefined {
  const match = ROUTE.exec(path);
  if (!match?.[1]) return undefined;
  return { modelId: decodeURIComponent(match[1]), stream: match[2] === 'converse-stream' };
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

function stopReason(turn: ResolvedTurn): string {
  return turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function usageJson(turn: ResolvedTurn): Json {
  const { inputTokens, outputTokens } = turn.usage;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** Tool arguments as the object Bedrock sends; scripted malformed JSON passes as a string. */
function toolInput(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** A non-streamed `Converse` response. */
export function buildConverseResponse(turn: ResolvedTurn): Json {
  const content: Json[] = [];
  if (turn.reasoning !== undefined) {
    content.push({ reasoningContent: { reasoningText: { text: turn.reasoning } } });
  }
  if (turn.text !== undefined && turn.text !== '') content.push({ text: turn.text });
  for (const call of turn.toolCalls) {
    content.push({
      toolUse: { toolUseId: call.callId, name: call.name, input: toolInput(call.arguments) },
    });
  }
  if (content.length === 0) content.push({ text: '' });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: stopReason(turn),
    usage: usageJson(turn),
    metrics: { latencyMs: 1 },
  };
}

/** The `ConverseStream` events, in order: `[eventType, payload]`. */
export function buildConverseEvents(turn: ResolvedTurn, chunkSize: number): [string, Json][] {
  const events: [string, Json][] = [['messageStart', { role: 'assistant' }]];
  let index = 0;
  const block = (deltas: Json[], start?: Json) => {
    const contentBlockIndex = index++;
    if (start) events.push(['contentBlockStart', { contentBlockIndex, start }]);
    for (const delta of deltas) events.push(['contentBlockDelta', { contentBlockIndex, delta }]);
    events.push(['contentBlockStop', { contentBlockIndex }]);
  };
  if (turn.reasoning !== undefined) {
    block(chunkText(turn.reasoning, chunkSize).map((text) => ({ reasoningContent: { text } })));
  }
  if (turn.text) block(chunkText(turn.text, chunkSize).map((text) => ({ text })));
  for (const call of turn.toolCalls) {
    block(
      chunkText(call.arguments, chunkSize).map((input) => ({ toolUse: { input } })),
      { toolUse: { toolUseId: call.callId, name: call.name } },
    );
  }
  events.push(['messageStop', { stopReason: stopReason(turn) }]);
  events.push(['metadata', { usage: usageJson(turn), metrics: { latencyMs: 1 } }]);
  return events;
}

function frame(headers: MessageHeaders, payload: unknown): Uint8Array {
  return codec.encode({ headers, body: new TextEncoder().encode(JSON.stringify(payload)) });
}

function eventFrame(eventType: string, payload: Json): Uint8Array {
  return frame(
    {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    payload,
  );
}

/** Answers one Converse request with a scripted turn, whole or as an event stream. */
export async function sendConverse(
  res: ServerResponse,
  turn: ResolvedTurn,
  stream: boolean,
  chunkSize: number,
): Promise<void> {
  if (!stream) {
    sendJson(res, 200, buildConverseResponse(turn), amznHeaders());
    return;
  }
  res.writeHead(200, { ...amznHeaders(), 'content-type': 'application/vnd.amazon.eventstream' });
  res.flushHeaders();
  for (const [eventType, payload] of buildConverseEvents(turn, chunkSize)) {
    if (isGone(res)) return;
    res.write(eventFrame(eventType, payload));
    await nextTick();
  }
  if (!isGone(res)) res.end();
}

function amznHeaders(): Record<string, string> {
  return { 'x-amzn-requestid': hexId('', 16) };
}

const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  503: 'ServiceUnavailableException',
};

/**
 * A scripted error as Bedrock's exception: the name from `error.type` when it is one
 * (`...Exception`), else from the status (other 4xx: ValidationException; 5xx:
 * InternalServerException).
 */
export function sendConverseError(res: ServerResponse, { error }: ScriptedError): void {
  const named = error.type?.endsWith('Exception') ? error.type : undefined;
  const name =
    named ??
    EXCEPTIONS[error.status] ??
    (error.status >= 500 ? 'InternalServerException' : 'ValidationException');
  const message = error.message ?? `scripted model server: scripted error ${error.status}`;
  sendJson(res, error.status, { message }, { ...amznHeaders(), 'x-amzn-errortype': name });
}
