import type { ServerResponse } from 'node:http';
import { sendJson } from './http.js';
import type { ScriptedAnswer, ScriptedError } from './script.js';
import { chunkText, fieldsOf, hexId, type ResolvedTurn, resolveTurn } from './turn.js';

type Json = Record<string, unknown>;

/** `/v1beta/models/{model}:generateContent` or `:streamGenerateContent` (Gemini's own API). */
const GEMINI_PATH =
  /^\/(v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The Gemini call a path names, if it names one. */
export function geminiRoute(path: string): { model: string; stream: boolean } | undefined {
  const match = GEMINI_PATH.exec(path);
  if (!match) return undefined;
  return {
    model: decodeURIComponent(match[2] ?? ''),
    stream: match[3] === 'streamGenerateContent',
  };
}

/** A scripted answer resolved for a Gemini request (input tokens estimated from its contents). */
export function resolveGeminiTurn(
  turn: ScriptedAnswer,
  body: unknown,
  options: { freshCallIds?: boolean },
): ResolvedTurn {
  const { systemInstruction, contents } = fieldsOf(body);
  const prompt = JSON.stringify([systemInstruction ?? null, contents ?? []]);
  // The same estimate as the OpenAI APIs: about four characters a token.
  const inputTokens = turn.usage?.inputTokens ?? Math.max(1, Math.ceil(prompt.length / 4));
  return resolveTurn({ ...turn, usage: { ...turn.usage, inputTokens } }, body, 'chat', options);
}

function usageMetadata(turn: ResolvedTurn): Json {
  const { inputTokens, outputTokens, reasoningTokens } = turn.usage;
  // Gemini counts thoughts apart from the candidates' tokens.
  const candidates = Math.max(0, outputTokens - reasoningTokens);
  return {
    promptTokenCount: inputTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: inputTokens + outputTokens,
    ...(reasoningTokens > 0 ? { thoughtsTokenCount: reasoningTokens } : {}),
  };
}

function functionCallParts(turn: ResolvedTurn): Json[] {
  return turn.toolCalls.map((call) => {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      // Gemini sends arguments as an object: malformed text reaches the client as a string.
      args = { _raw: call.arguments };
    }
    return { functionCall: { id: call.callId, name: call.name, args } };
  });
}

function chunk(parts: Json[], model: string, responseId: string, last?: ResolvedTurn): Json {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        // Gemini ends a function-calling answer with STOP too.
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last ? { usageMetadata: usageMetadata(last) } : {}),
    modelVersion: model,
    responseId,
  };
}

/** A non-streamed `GenerateContentResponse`. */
export function buildGeminiResponse(turn: ResolvedTurn, model: string): Json {
  const parts: Json[] = [];
  if (turn.reasoning) parts.push({ text: turn.reasoning, thought: true });
  if (turn.text) parts.push({ text: turn.text });
  parts.push(...functionCallParts(turn));
  if (parts.length === 0) parts.push({ text: '' });
  return chunk(parts, model, hexId('', 12), turn);
}

/**
 * The chunks of `streamGenerateContent?alt=sse`: thoughts and text in deltas, function calls
 * whole (Gemini does not stream their arguments), and the last chunk with the finish reason
 * and usage.
 */
export function buildGeminiChunks(turn: ResolvedTurn, model: string, chunkSize: number): Json[] {
  const id = hexId('', 12);
  const chunks: Json[] = [];
  for (const text of chunkText(turn.reasoning ?? '', chunkSize)) {
    chunks.push(chunk([{ text, thought: true }], model, id));
  }
  for (const text of chunkText(turn.text ?? '', chunkSize))
    chunks.push(chunk([{ text }], model, id));
  const calls = functionCallParts(turn);
  if (calls.length > 0) chunks.push(chunk(calls, model, id, turn));
  else chunks.push(chunk(chunks.length === 0 ? [{ text: '' }] : [], model, id, turn));
  return chunks;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's error envelope: `{ error: { code, message, status } }`. */
export function sendGeminiError(res: ServerResponse, { error }: ScriptedError): void {
  const headers: Record<string, string> = {};
  if (error.status === 429 && error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(error.retryAfterSeconds);
  }
  sendJson(
    res,
    error.status,
    {
      error: {
        code: error.status,
        message: error.message ?? `scripted model server: scripted error ${error.status}`,
        status: error.code ?? STATUS_NAMES[error.status] ?? 'UNKNOWN',
      },
    },
    headers,
  );
}
