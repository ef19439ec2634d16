import { randomBytes } from 'node:crypto';
import type { ScriptedAnswer } from './script.js';

/** A scripted answer with ids assigned, arguments serialised and usage settled. */
export interface ResolvedTurn {
  /** Undefined when the turn only calls tools (no message item, `content: null`). */
  text: string | undefined;
  reasoning: string | undefined;
  toolCalls: { callId: string; name: string; arguments: string }[];
  usage: { inputTokens: number; outputTokens: number; reasoningTokens: number };
  /** The stream fails after its output (ScriptedAnswer.failAfterOutput). */
  failure?: { message: string; code: string };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Hex ids like the Responses API's (`resp_68a1...`). */
export function hexId(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

/** Alphanumeric ids like Chat Completions' (`chatcmpl-...`, `call_...`). */
export function alnumId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) {
    id += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  }
  return id;
}

/** Splits by code points so a delta never ends inside a surrogate pair. */
export function chunkText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += size) {
    chunks.push(chars.slice(i, i + size).join(''));
  }
  return chunks;
}

// Roughly four characters a token: deterministic, and close enough for budget tests.
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * A model API request as the client sent it: parsed JSON, read field by field and never trusted
 * (null and non-objects read as having no fields).
 */
export type RequestBody = { readonly [field: string]: unknown };

/** The body's fields, or none when it is not an object. */
export function fieldsOf(body: unknown): RequestBody {
  return typeof body === 'object' && body !== null ? (body as RequestBody) : {};
}

function promptText(body: unknown, api: 'responses' | 'chat'): string {
  const b = fieldsOf(body);
  const parts = api === 'chat' ? [b.messages] : [b.instructions, b.input];
  return parts
    .filter((part) => part !== undefined && part !== null)
    .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
    .join('\n');
}

export function resolveTurn(
  turn: ScriptedAnswer,
  body: unknown,
  api: 'responses' | 'chat',
  options: { freshCallIds?: boolean } = {},
): ResolvedTurn {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    callId: options.freshCallIds ? alnumId('call_') : (call.id ?? alnumId('call_')),
    name: call.name,
    // Strings pass through untouched so tests can script malformed arguments.
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  // A turn with nothing to say still answers with an (empty) message, as a model would.
  const text = turn.text ?? (toolCalls.length === 0 ? '' : undefined);
  const estimatedReasoning = turn.reasoning ? estimateTokens(turn.reasoning) : 0;
  const estimatedOutput =
    estimatedReasoning +
    estimateTokens(text ?? '') +
    toolCalls.reduce((sum, call) => sum + estimateTokens(call.name + call.arguments), 0);
  const outputTokens = turn.usage?.outputTokens ?? Math.max(1, estimatedOutput);
  const failed = turn.failAfterOutput;
  return {
    text,
    reasoning: turn.reasoning,
    toolCalls,
    ...(failed
      ? {
          failure: {
            message: failed.message ?? 'The model failed mid-stream.',
            code: failed.code ?? 'server_error',
          },
        }
      : {}),
    usage: {
      inputTokens: turn.usage?.inputTokens ?? Math.max(1, estimateTokens(promptText(body, api))),
      outputTokens,
      // Reasoning tokens are part of output tokens, so never more than them.
      reasoningTokens: Math.min(estimatedReasoning, outputTokens),
    },
  };
}

/** The model name echoed back, as the real API echoes the requested one. */
export function modelName(body: unknown): string {
  const { model } = fieldsOf(body);
  return typeof model === 'string' && model !== '' ? model : 'scripted-model';
}
