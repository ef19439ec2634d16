import { type Model, type ModelRequest, type ModelResponse, Usage } from '@openai/agents';
import type { RunJournal } from '../../core/journal.js';
import { asJson, modelRequestKey } from '../../core/model-step.js';
import { historyRequestKey } from '../../core/request-key.js';
import type { JsonValue } from '../../core/session.js';
import { tryToolContext } from '../../core/tool-context.js';

type StreamEvent =
  ReturnType<Model['getStreamedResponse']> extends AsyncIterable<infer E> ? E : never;

/** A model response as the journal keeps it: the shape of the stream's `response_done`. */
interface RecordedResponse {
  id: string;
  requestId?: string;
  usage: Record<string, unknown>;
  output: ModelResponse['output'];
}

/**
 * Wraps a model so a run's journal replays it: a request whose response an earlier attempt
 * recorded is answered from the journal (no model call, so call ids stay the same); a fresh
 * response that asks for tool calls is recorded before the SDK sees it, so before any tool runs
 * (the SDK runs tools only once the response is done). Outside a journaled run it only forwards.
 */
export function journaledModel(model: Model): Model {
  const wrapped: Model = {
    get supportsPromptModelSelection() {
      return model.supportsPromptModelSelection;
    },
    // Outside a journaled run the model's own promise: no async layer per model call.
    getResponse: (request) => {
      const journal = tryToolContext()?.journal;
      return journal ? journaled(model, request, journal) : model.getResponse(request);
    },
    // Outside a journaled run the stream is the model's own: no generator layer per event.
    getStreamedResponse: (request) => {
      const journal = tryToolContext()?.journal;
      return journal ? streamed(model, request, journal) : model.getStreamedResponse(request);
    },
  };
  if (model.getRetryAdvice) wrapped.getRetryAdvice = (args) => model.getRetryAdvice!(args);
  return wrapped;
}

async function journaled(
  model: Model,
  request: ModelRequest,
  journal: RunJournal,
): Promise<ModelResponse> {
  const key = keyOf(request);
  const recorded = journal.recordedModel(key, () => legacyKeyOf(request)) as
    | RecordedResponse
    | undefined;
  if (recorded) return toModelResponse(recorded);
  const response = await model.getResponse(request);
  if (callsTools(response.output)) await journal.recordModel(key, fromModelResponse(response));
  return response;
}

async function* streamed(
  model: Model,
  request: ModelRequest,
  journal: RunJournal,
): AsyncIterable<StreamEvent> {
  const key = keyOf(request);
  const recorded = journal.recordedModel(key, () => legacyKeyOf(request)) as
    | RecordedResponse
    | undefined;
  if (recorded) {
    // What the SDK's run loop needs of a stream: its start and the finished response. The
    // runner's event mapper emits the text and tool calls from the run items.
    yield { type: 'response_started' } as StreamEvent;
    yield { type: 'response_done', response: recorded } as unknown as StreamEvent;
    return;
  }
  for await (const event of model.getStreamedResponse(request)) {
    if (event.type === 'response_done' && callsTools(event.response.output)) {
      // The response's providerData (the API's echo of the request: tool schemas and all) is
      // not used by the SDK's run loop: left out, it would be most of the record.
      const { providerData: _echo, ...kept } = event.response;
      await journal.recordModel(key, asJson<JsonValue>(kept));
    }
    yield event;
  }
}

/**
 * What decides the model's answer and is the same on every attempt of a run: the input items
 * (earlier responses and tool outputs are replayed, so they repeat exactly), the instructions
 * and the tools offered. Settings are left out: they do not change between attempts.
 */
function keyOf(request: ModelRequest): string {
  const { input } = request;
  // The input items chained: a step hashes only the items added since the last one.
  return historyRequestKey(
    'openai',
    {
      instructions: request.systemInstructions ?? null,
      input: typeof input === 'string' ? 'text' : 'items',
      tools: request.tools.map((tool) => tool.name),
      handoffs: request.handoffs.map((handoff) => handoff.toolName),
    },
    typeof input === 'string' ? [input as unknown] : (input as readonly unknown[]),
  );
}

/** The key the build before chained keys gave this request (a journal it wrote replays). */
function legacyKeyOf(request: ModelRequest): string {
  return modelRequestKey(
    {
      instructions: request.systemInstructions ?? null,
      input: request.input,
      tools: request.tools.map((tool) => tool.name),
      handoffs: request.handoffs.map((handoff) => handoff.toolName),
    },
    'openai',
  );
}

/** Anything but a message or reasoning is an action: a function, handoff or hosted tool call. */
function callsTools(output: readonly { type?: string }[]): boolean {
  return output.some((item) => item.type !== 'message' && item.type !== 'reasoning');
}

function fromModelResponse(response: ModelResponse): JsonValue {
  const recorded: RecordedResponse = {
    id: response.responseId ?? '',
    usage: asJson(response.usage),
    output: response.output,
    ...(response.requestId ? { requestId: response.requestId } : {}),
  };
  return asJson<JsonValue>(recorded);
}

function toModelResponse(recorded: RecordedResponse): ModelResponse {
  return {
    usage: new Usage(recorded.usage as ConstructorParameters<typeof Usage>[0]),
    output: recorded.output,
    ...(recorded.id ? { responseId: recorded.id } : {}),
    ...(recorded.requestId ? { requestId: recorded.requestId } : {}),
  };
}
