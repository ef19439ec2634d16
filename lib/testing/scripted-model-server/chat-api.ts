import { alnumId, chunkText, fieldsOf, modelName, type ResolvedTurn } from './turn.js';

type Json = Record<string, unknown>;

function usageJson(turn: ResolvedTurn): Json {
  const { inputTokens, outputTokens, reasoningTokens } = turn.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(turn: ResolvedTurn): string {
  return turn.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function envelope(id: string, object: string, body: unknown, created = Date.now()): Json {
  return {
    id,
    object,
    created: Math.floor(created / 1000),
    model: modelName(body),
    service_tier: 'default',
    system_fingerprint: 'fp_scripted',
  };
}

/** A non-streamed `chat.completion`. */
export function buildChatCompletion(turn: ResolvedTurn, body: unknown): Json {
  const message: Json = {
    role: 'assistant',
    content: turn.text ?? null,
    refusal: null,
    annotations: [],
  };
  // OpenAI never returns reasoning text here; compatible servers use `reasoning`, which
  // @openai/agents reads, so it appears only when a turn scripts reasoning.
  if (turn.reasoning !== undefined) message.reasoning = turn.reasoning;
  if (turn.toolCalls.length > 0) {
    message.tool_calls = turn.toolCalls.map((call) => ({
      id: call.callId,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    ...envelope(alnumId('chatcmpl-', 29), 'chat.completion', body),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    usage: usageJson(turn),
  };
}

/** The `chat.completion.chunk` sequence of a streamed completion (without `[DONE]`). */
export function buildChatChunks(turn: ResolvedTurn, body: unknown, chunkSize: number): Json[] {
  const id = alnumId('chatcmpl-', 29);
  // Every chunk of one completion shares its id and creation time.
  const created = Date.now();
  const includeUsage = fieldsOf(fieldsOf(body).stream_options).include_usage === true;
  const chunks: Json[] = [];
  const push = (delta: Json, finish: string | null = null) => {
    chunks.push({
      ...envelope(id, 'chat.completion.chunk', body, created),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      // With include_usage every chunk carries `usage: null` until the final usage chunk.
      ...(includeUsage ? { usage: null } : {}),
    });
  };

  push({ role: 'assistant', content: turn.text === undefined ? null : '', refusal: null });
  for (const reasoning of chunkText(turn.reasoning ?? '', chunkSize)) push({ reasoning });
  for (const content of chunkText(turn.text ?? '', chunkSize)) push({ content });
  turn.toolCalls.forEach((call, index) => {
    // The first delta names the call; later ones only append argument text.
    push({
      tool_calls: [
        { index, id: call.callId, type: 'function', function: { name: call.name, arguments: '' } },
      ],
    });
    for (const args of chunkText(call.arguments, chunkSize)) {
      push({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  });
  if (turn.failure) {
    // OpenAI's mid-stream failure: an error object where the next chunk would be.
    const { message, code } = turn.failure;
    chunks.push({ error: { message, type: 'server_error', code, param: null } });
    return chunks;
  }
  push({}, finishReason(turn));
  if (includeUsage) {
    chunks.push({
      ...envelope(id, 'chat.completion.chunk', body, created),
      choices: [],
      usage: usageJson(turn),
    });
  }
  return chunks;
}
