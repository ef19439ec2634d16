import type { InvokeModelContext, InvokeModelResult, Message } from '@strands-agents/sdk';
import { activeSpan, type Span, startChildSpan } from '../../core/tracer.js';

type StreamAggregatedResult = InvokeModelResult['result'];

/**
 * The model spans of one Strands run: one `model` span (a child of the active span: the run's)
 * per model call the journal did not answer, with the model id, provider and token usage.
 * `close()` ends whatever a run left open (an abandoned stream).
 */
export class StrandsModelSpans {
  readonly #open = new Set<Span>();

  /** Undefined when not traced (the no-op tracer): nothing to build. */
  start(ctx: InvokeModelContext): Span | undefined {
    if (!activeSpan()) return undefined;
    const span = startChildSpan('model', 'model', {
      model: ctx.model.modelId,
      provider: ctx.model.constructor.name,
      streamed: true,
    });
    span.setPayload('input', () => ctx.messages.map(summary));
    this.#open.add(span);
    return span;
  }

  end(span: Span | undefined, result: StreamAggregatedResult): void {
    if (!span) return;
    const usage = result.metadata?.usage;
    span.setAttributes({ inputTokens: usage?.inputTokens, outputTokens: usage?.outputTokens });
    span.setPayload('output', () => [summary(result.message)]);
    this.#end(span);
  }

  fail(span: Span | undefined, err: unknown): void {
    if (!span) return;
    span.recordError(err);
    this.#end(span);
  }

  /** Ends the spans still open (an aborted or abandoned run); an abort is their error. */
  close(signal?: AbortSignal): void {
    for (const span of this.#open) {
      if (signal?.aborted) span.recordError(signal.reason);
      span.end();
    }
    this.#open.clear();
  }

  #end(span: Span): void {
    if (this.#open.delete(span)) span.end();
  }
}

/**
 * What a trace keeps of a message: role and text, tool calls by name and id, tool results by
 * id. Tool-call arguments are left out: the tool span records them, with sensitive paths applied.
 */
function summary(message: Message): unknown {
  const out: Record<string, unknown> = { role: message.role };
  const text = message.content
    .map((block) => (block.type === 'textBlock' ? block.text : ''))
    .join('');
  if (text) out.text = text;
  const calls = message.content.flatMap((block) =>
    block.type === 'toolUseBlock' ? [{ name: block.name, callId: block.toolUseId }] : [],
  );
  if (calls.length > 0) out.calls = calls;
  const results = message.content.flatMap((block) =>
    block.type === 'toolResultBlock'
      ? [{ callId: block.toolUseId, status: block.status, output: resultOutput(block.content) }]
      : [],
  );
  if (results.length > 0) out.results = results;
  return out;
}

/** A tool result's content as the model reads it: texts and JSON values. */
function resultOutput(content: readonly unknown[]): unknown {
  const values = content.map((item) => {
    const block = item as { text?: unknown; json?: unknown };
    return block.text ?? block.json ?? null;
  });
  return values.length === 1 ? values[0] : values;
}
