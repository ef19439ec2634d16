/**
 * `gen_ai.input.messages` / `gen_ai.output.messages` in the GenAI conventions' shape (semantic
 * conventions 1.37+, docs/gen-ai/gen-ai-{input,output}-messages.json): messages of `role` and
 * `parts` (`text`, `tool_call`, `tool_call_response`), output messages with `finish_reason`.
 * The runners record a compact summary per message (`{ role, text, calls, results }`, or the
 * OpenAI SDK's items); this turns the redacted summary into that shape.
 */

export interface GenAiPart {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface GenAiMessage {
  readonly role: string;
  readonly parts: GenAiPart[];
  readonly finish_reason?: string;
}

/** The frameworks' role names → the conventions' (`system`, `user`, `assistant`, `tool`). */
const ROLES: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  model: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
};

type Summary = Record<string, unknown>;

/** The messages of a model span's payload; `undefined` when it is not a list of messages. */
export function toGenAiMessages(
  value: unknown,
  direction: 'input' | 'output',
): GenAiMessage[] | undefined {
  const fallbackRole = direction === 'input' ? 'user' : 'assistant';
  if (typeof value === 'string') return [withFinish({ role: fallbackRole, parts: [text(value)] })];
  if (!Array.isArray(value)) return undefined;
  const messages: GenAiMessage[] = [];
  for (const entry of value) {
    if (typeof entry === 'string') messages.push({ role: fallbackRole, parts: [text(entry)] });
    else if (entry && typeof entry === 'object') messages.push(messageOf(entry as Summary));
    else return undefined;
  }
  return direction === 'output' ? messages.map(withFinish) : messages;
}

function messageOf(item: Summary): GenAiMessage {
  // The OpenAI SDK's items: a call and a call's result are items of their own.
  if (item.type === 'function_call') {
    return { role: 'assistant', parts: [toolCall({ name: item.name, callId: item.callId })] };
  }
  if (item.type === 'function_call_result') {
    return { role: 'tool', parts: [toolResponse(item.callId, item.output)] };
  }
  const role = roleOf(item.role);
  const parts: GenAiPart[] = [];
  // A LangChain ToolMessage: its text is the response to the call it names.
  if (role === 'tool' && typeof item.callId === 'string') {
    parts.push(toolResponse(item.callId, item.text ?? item.output ?? null));
  } else if (typeof item.text === 'string' && item.text !== '') parts.push(text(item.text));
  if (Array.isArray(item.calls)) for (const call of item.calls) parts.push(toolCall(call));
  if (Array.isArray(item.results)) {
    for (const result of item.results as Summary[]) {
      parts.push(toolResponse(result?.callId, result?.output ?? result?.status ?? null));
    }
  }
  // Gemini and Bedrock send tool results in a `user` message: to the conventions, a `tool` one.
  const results = parts.length > 0 && parts.every((part) => part.type === 'tool_call_response');
  return { role: results ? 'tool' : (role ?? 'user'), parts };
}

function roleOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  return ROLES[raw.toLowerCase()] ?? raw;
}

function text(content: string): GenAiPart {
  return { type: 'text', content };
}

function toolCall(call: unknown): GenAiPart {
  const { name, callId, arguments: args } = (call ?? {}) as Summary;
  return {
    type: 'tool_call',
    id: typeof callId === 'string' ? callId : null,
    name: typeof name === 'string' ? name : String(name ?? ''),
    ...(args === undefined ? {} : { arguments: args }),
  };
}

function toolResponse(callId: unknown, response: unknown): GenAiPart {
  return {
    type: 'tool_call_response',
    id: typeof callId === 'string' ? callId : null,
    response: response ?? null,
  };
}

/**
 * The runners' summaries carry no finish reason: a response that asks for tools stopped for
 * them (`tool_call`), any other stopped (`stop`); a message already carrying one keeps it.
 */
function withFinish(message: GenAiMessage): GenAiMessage {
  if (message.finish_reason) return message;
  const calls = message.parts.some((part) => part.type === 'tool_call');
  return { ...message, finish_reason: calls ? 'tool_call' : 'stop' };
}

/**
 * The JSON of `messages` within `max` characters: the oldest messages go first (the latest are
 * the ones a reader needs), then the remaining texts are clipped; always valid JSON.
 */
export function messagesJson(messages: readonly GenAiMessage[], max: number): string {
  let kept = [...messages];
  let json = JSON.stringify(kept);
  while (json.length > max && kept.length > 1) {
    kept = kept.slice(1);
    json = JSON.stringify(kept);
  }
  if (json.length <= max) return json;
  const budget = Math.max(0, Math.floor(max / 2));
  const clipped = kept.map((message) => ({
    ...message,
    parts: message.parts.map((part) =>
      part.type === 'text' && typeof part.content === 'string'
        ? { ...part, content: part.content.slice(0, budget) }
        : part.type === 'tool_call_response'
          ? { ...part, response: JSON.stringify(part.response ?? null).slice(0, budget) }
          : part,
    ),
  }));
  json = JSON.stringify(clipped);
  return json.length <= max ? json : '[]';
}
