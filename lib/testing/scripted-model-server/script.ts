import * as z from 'zod';

/** One function call the scripted model makes. `id` becomes the call id (`call_...` if absent). */
export type ScriptedToolCall = {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
};

/** What the model answers to one request: an answer, or an HTTP error. */
export type ScriptedTurn =
  | {
      text?: string;
      reasoning?: string;
      toolCalls?: ScriptedToolCall[];
      usage?: { inputTokens?: number; outputTokens?: number };
      delayMs?: number;
      /**
       * A streamed answer fails after its output (text, tool calls): the Responses stream ends
       * with `response.failed`, a Chat Completions stream with an `error` chunk, as a provider's
       * mid-stream failure does. A non-streamed request gets the answer as usual.
       */
      failAfterOutput?: { message?: string; code?: string };
    }
  | {
      error: {
        status: number;
        message?: string;
        type?: string;
        code?: string;
        retryAfterSeconds?: number;
      };
    };

export type ScriptedAnswer = Exclude<ScriptedTurn, { error: unknown }>;
export type ScriptedError = Extract<ScriptedTurn, { error: unknown }>;

/** A request as the server received it, kept so tests can assert what a framework sent. */
export interface RecordedRequest {
  path: string;
  api: 'responses' | 'chat' | 'gemini' | 'converse';
  stream: boolean;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
}

/** A fixed turn, or a responder that builds the turn from the request it answers. */
export type ScriptEntry =
  | ScriptedTurn
  | ((request: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>);

// Strict objects so a typo such as `toolcalls` fails loudly instead of being ignored.
const toolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
});

const tokenCount = z.number().int().nonnegative();

const answerSchema = z.strictObject({
  text: z.string().optional(),
  reasoning: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  usage: z
    .strictObject({ inputTokens: tokenCount.optional(), outputTokens: tokenCount.optional() })
    .optional(),
  delayMs: z.number().nonnegative().finite().optional(),
  failAfterOutput: z
    .strictObject({ message: z.string().optional(), code: z.string().optional() })
    .optional(),
});

const errorSchema = z.strictObject({
  error: z.strictObject({
    status: z.number().int().min(400).max(599),
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.string().optional(),
    retryAfterSeconds: z.number().nonnegative().finite().optional(),
  }),
});

export function isErrorTurn(turn: ScriptedTurn): turn is ScriptedError {
  return 'error' in turn;
}

/** Checks one turn; `where` names it in the message (e.g. "script entry 2"). */
export function validateTurn(turn: unknown, where: string): ScriptedTurn {
  if (typeof turn !== 'object' || turn === null || Array.isArray(turn)) {
    throw new Error(`scripted model server: ${where} must be an object or a function`);
  }
  // Pick the schema by shape: a union would report both branches' errors at once.
  const schema = 'error' in turn ? errorSchema : answerSchema;
  const parsed = schema.safeParse(turn);
  if (!parsed.success) {
    throw new Error(`scripted model server: bad ${where}:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data as ScriptedTurn;
}

/** Checks an entry when pushed; functions are checked when they answer. */
export function validateEntry(entry: unknown, where: string): ScriptEntry {
  if (typeof entry === 'function') {
    return entry as ScriptEntry;
  }
  return validateTurn(entry, where);
}
