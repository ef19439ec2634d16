import { chunkText, fieldsOf, hexId, modelName, type ResolvedTurn } from './turn.js';

type Json = Record<string, unknown>;

/** One output item in its finished form, plus how to stream it. */
interface PlannedItem {
  done: Json;
  added: Json;
  stream: (emit: Emit, outputIndex: number, chunkSize: number) => void;
}

type Emit = (type: string, fields: Json) => void;

function reasoningItem(summary: string): PlannedItem {
  const id = hexId('rs_');
  const part = (text: string) => ({ type: 'summary_text', text });
  return {
    added: { id, type: 'reasoning', summary: [] },
    done: { id, type: 'reasoning', summary: [part(summary)] },
    stream(emit, outputIndex, chunkSize) {
      const at = { item_id: id, output_index: outputIndex, summary_index: 0 };
      emit('response.reasoning_summary_part.added', { ...at, part: part('') });
      for (const delta of chunkText(summary, chunkSize)) {
        emit('response.reasoning_summary_text.delta', { ...at, delta });
      }
      emit('response.reasoning_summary_text.done', { ...at, text: summary });
      emit('response.reasoning_summary_part.done', { ...at, part: part(summary) });
    },
  };
}

function messageItem(text: string): PlannedItem {
  const id = hexId('msg_');
  const part = (value: string) => ({
    type: 'output_text',
    annotations: [],
    logprobs: [],
    text: value,
  });
  const item = (status: string, content: Json[]) => ({
    id,
    type: 'message',
    status,
    content,
    role: 'assistant',
  });
  return {
    added: item('in_progress', []),
    done: item('completed', [part(text)]),
    stream(emit, outputIndex, chunkSize) {
      const at = { item_id: id, output_index: outputIndex, content_index: 0 };
      emit('response.content_part.added', { ...at, part: part('') });
      for (const delta of chunkText(text, chunkSize)) {
        emit('response.output_text.delta', { ...at, delta, logprobs: [] });
      }
      emit('response.output_text.done', { ...at, text, logprobs: [] });
      emit('response.content_part.done', { ...at, part: part(text) });
    },
  };
}

function functionCallItem(call: ResolvedTurn['toolCalls'][number]): PlannedItem {
  const id = hexId('fc_');
  const item = (status: string, args: string) => ({
    id,
    type: 'function_call',
    status,
    arguments: args,
    call_id: call.callId,
    name: call.name,
  });
  return {
    added: item('in_progress', ''),
    done: item('completed', call.arguments),
    stream(emit, outputIndex, chunkSize) {
      const at = { item_id: id, output_index: outputIndex };
      for (const delta of chunkText(call.arguments, chunkSize)) {
        emit('response.function_call_arguments.delta', { ...at, delta });
      }
      emit('response.function_call_arguments.done', { ...at, arguments: call.arguments });
    },
  };
}

// Real order: reasoning first, then the message, then the calls it decided to make.
function planItems(turn: ResolvedTurn): PlannedItem[] {
  const items: PlannedItem[] = [];
  if (turn.reasoning !== undefined) items.push(reasoningItem(turn.reasoning));
  if (turn.text !== undefined) items.push(messageItem(turn.text));
  for (const call of turn.toolCalls) items.push(functionCallItem(call));
  return items;
}

function usageJson(turn: ResolvedTurn): Json {
  const { inputTokens, outputTokens, reasoningTokens } = turn.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

/** The response object's request echo, as the real API returns it. */
function responseShell(id: string, createdAt: number, body: unknown): Json {
  const b = fieldsOf(body);
  const reasoning = fieldsOf(b.reasoning);
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: b.background ?? false,
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: b.max_tool_calls ?? null,
    model: modelName(body),
    output: [],
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    prompt_cache_key: b.prompt_cache_key ?? null,
    reasoning: {
      effort: reasoning.effort ?? null,
      summary: reasoning.summary ?? null,
    },
    safety_identifier: b.safety_identifier ?? null,
    service_tier: 'default',
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: b.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_logprobs: b.top_logprobs ?? 0,
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage: null,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
    access_programs: null,
  };
}

/** Builds the finished response and, for `stream: true`, the full event sequence leading to it. */
export function buildResponse(
  turn: ResolvedTurn,
  body: unknown,
  chunkSize: number,
): { response: Json; events: Json[] } {
  const id = hexId('resp_');
  const createdAt = Math.floor(Date.now() / 1000);
  const items = planItems(turn);
  const response: Json = {
    ...responseShell(id, createdAt, body),
    status: 'completed',
    completed_at: Math.max(createdAt, Math.floor(Date.now() / 1000)),
    output: items.map((item) => item.done),
    usage: usageJson(turn),
  };

  const events: Json[] = [];
  const emit: Emit = (type, fields) => {
    events.push({ type, ...fields, sequence_number: events.length });
  };
  // Each lifecycle event gets its own object: events are serialised later, one by one.
  emit('response.created', { response: responseShell(id, createdAt, body) });
  emit('response.in_progress', { response: responseShell(id, createdAt, body) });
  items.forEach((item, outputIndex) => {
    emit('response.output_item.added', { output_index: outputIndex, item: item.added });
    item.stream(emit, outputIndex, chunkSize);
    emit('response.output_item.done', { output_index: outputIndex, item: item.done });
  });
  if (turn.failure) {
    const { message, code } = turn.failure;
    emit('response.failed', {
      response: { ...response, status: 'failed', error: { code, message } },
    });
  } else emit('response.completed', { response });
  return { response, events };
}
