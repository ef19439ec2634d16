import type { Model, ModelProvider, ModelRequest, ModelResponse } from '@openai/agents';
import { activeSpan, type Span, startChildSpan, traceChild } from '../../core/tracer.js';
import { journaledModel } from './model-journal.js';

const TRACED = Symbol.for('agent-kernel.traced-model-provider');

/**
 * Wraps a model provider so every model call is a `model` span (a child of the run's span) with
 * its token usage, and is replayed from the run's journal when an earlier attempt recorded it
 * (`model-journal.ts`). Outside a traced, journaled run the wrapper only forwards. Agents whose
 * `model` is a Model instance rather than a name bypass the provider: neither traced nor replayed.
 */
export function tracedModelProvider(provider: ModelProvider): ModelProvider {
  if ((provider as { [TRACED]?: boolean })[TRACED]) return provider;
  const models = new Map<string, Model>();
  return {
    [TRACED]: true,
    async getModel(name?: string): Promise<Model> {
      const key = name ?? '';
      let model = models.get(key);
      if (!model) {
        const native = await provider.getModel(name);
        model = tracedModel(journaledModel(native), name ?? 'default', providerOf(native));
        models.set(key, model);
      }
      return model;
    },
  } as ModelProvider;
}

function tracedModel(model: Model, name: string, provider: string): Model {
  // Explicit delegation (not a prototype chain): SDK models keep state in private fields.
  const traced: Model = {
    get supportsPromptModelSelection() {
      return model.supportsPromptModelSelection;
    },
    // Outside a traced run the model's own promise: no span wrapper per model call.
    getResponse: (request) =>
      activeSpan()
        ? traceChild('model', 'model', { model: name, provider }, async (span) => {
            span.setPayload('input', () => inputSummary(request));
            const response = await model.getResponse(request);
            recordResponse(span, response);
            return response;
          })
        : model.getResponse(request),
    // Outside a traced run the stream is the model's own: no generator layer per event.
    getStreamedResponse: (request) =>
      activeSpan() ? streamed(model, name, provider, request) : model.getStreamedResponse(request),
  };
  if (model.getRetryAdvice) traced.getRetryAdvice = (args) => model.getRetryAdvice!(args);
  return traced;
}

async function* streamed(model: Model, name: string, provider: string, request: ModelRequest) {
  const span = startChildSpan('model', 'model', {
    model: name,
    provider,
    streamed: true,
  });
  span.setPayload('input', () => inputSummary(request));
  try {
    for await (const event of model.getStreamedResponse(request)) {
      if (event.type === 'response_done') {
        recordResponse(span, event.response as unknown as ModelResponse);
      }
      yield event;
    }
  } catch (err) {
    span.recordError(err);
    throw err;
  } finally {
    span.end();
  }
}

/** The SDK's own models (`OpenAIResponsesModel`, …) call OpenAI; another model names its class. */
function providerOf(model: Model): string {
  const name = (model as object).constructor?.name ?? '';
  return /^OpenAI/.test(name) ? 'openai' : name || 'openai';
}

function recordResponse(span: Span, response: ModelResponse): void {
  span.setAttributes({
    inputTokens: response.usage?.inputTokens,
    outputTokens: response.usage?.outputTokens,
    responseId: response.responseId,
  });
  span.setPayload('output', () => outputSummary(response.output));
}

/**
 * What a trace keeps of a request: roles and text. Tool-call arguments are left out here: the
 * tool span records them, with the tool's sensitive paths applied.
 */
function inputSummary(request: ModelRequest): unknown {
  if (typeof request.input === 'string') return [{ role: 'user', text: request.input }];
  return request.input.map((item) => summariseItem(item as Record<string, unknown>));
}

function outputSummary(output: readonly unknown[]): unknown {
  return output.map((item) => summariseItem(item as Record<string, unknown>));
}

function summariseItem(item: Record<string, unknown>): Record<string, unknown> {
  const type = String(item.type ?? 'message');
  if (type === 'function_call') return { type, name: item.name, callId: item.callId };
  if (type === 'function_call_result') return { type, callId: item.callId, output: item.output };
  return { type, role: item.role, text: textOf(item.content) };
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) => (part as { text?: unknown }).text)
    .filter((text): text is string => typeof text === 'string')
    .join('');
}
