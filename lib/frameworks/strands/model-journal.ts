import type { InvokeModelContext, InvokeModelResult } from '@strands-agents/sdk';
import {
  type Agent,
  InvokeModelStage,
  Message,
  type MessageData,
  type ModelStreamEvent,
  ModelStreamUpdateEvent,
  type StopReason,
  type Usage,
} from '@strands-agents/sdk';
import { asJson, modelRequestKey } from '../../core/model-step.js';
import { historyRequestKey } from '../../core/request-key.js';
import type { JsonValue } from '../../core/session.js';
import { tryToolContext } from '../../core/tool-context.js';
import type { StrandsModelSpans } from './model-tracing.js';

type StreamAggregatedResult = InvokeModelResult['result'];

/** A model response as the journal keeps it: the stream's events and the assembled message. */
interface Recorded {
  events: ModelStreamEvent[];
  message: MessageData;
  stopReason: StopReason;
  usage?: Usage;
}

/**
 * Every model call of the run through one `InvokeModelStage` middleware: a call whose response
 * an earlier attempt of the run recorded is answered from the journal (its stream events
 * replayed, so the call ids stay the ones the tools ran under), without a span or a request; a
 * fresh call gets a `model` span, and its response is recorded when it asks for tools (before
 * Strands runs them: tools run after the model call returns).
 */
export function observeModel(agent: Agent, spans: StrandsModelSpans): void {
  agent.addMiddleware(InvokeModelStage, async function* (ctx, next) {
    const journal = tryToolContext()?.journal;
    const key = journal ? keyOf(ctx) : undefined;
    const recorded = key
      ? (journal?.recordedModel(key, () => legacyKeyOf(ctx)) as Recorded | undefined)
      : undefined;
    if (recorded) {
      for (const event of recorded.events) {
        yield new ModelStreamUpdateEvent({
          agent: ctx.agent,
          event,
          invocationState: ctx.invocationState,
        });
      }
      return { result: revive(recorded) };
    }
    const span = spans.start(ctx);
    const events: ModelStreamEvent[] = [];
    try {
      const call = next(ctx);
      let step = await call.next();
      while (!step.done) {
        if (step.value.type === 'modelStreamUpdateEvent') events.push(step.value.event);
        yield step.value;
        step = await call.next();
      }
      const { result } = step.value;
      spans.end(span, result);
      if (journal && key && result.message.content.some((b) => b.type === 'toolUseBlock')) {
        await journal.recordModel(key, toRecord(events, result));
      }
      return step.value;
    } catch (err) {
      spans.fail(span, err);
      throw err;
    }
  });
}

/**
 * What decides the model's answer and is the same on every attempt: the system prompt, the
 * messages (without Strands' per-message `trackingId` and response metadata, minted per
 * attempt) and the tools offered.
 */
function keyOf(ctx: InvokeModelContext): string {
  return historyRequestKey(
    'strands',
    { system: ctx.systemPrompt ?? null, tools: ctx.toolSpecs.map((spec) => spec.name) },
    ctx.messages,
    (m) => ({ role: m.role, content: m.toJSON().content }),
  );
}

/** The key the build before chained keys gave this request (a journal it wrote replays). */
function legacyKeyOf(ctx: InvokeModelContext): string {
  return modelRequestKey(
    {
      system: ctx.systemPrompt ?? null,
      messages: ctx.messages.map((m) => ({ role: m.role, content: m.toJSON().content })),
      tools: ctx.toolSpecs.map((spec) => spec.name),
    },
    'strands',
  );
}

function toRecord(events: ModelStreamEvent[], result: StreamAggregatedResult): JsonValue {
  const usage = result.metadata?.usage;
  return asJson<JsonValue>({
    events: compact(events),
    message: { role: result.message.role, content: result.message.toJSON().content },
    stopReason: result.stopReason,
    ...(usage ? { usage } : {}),
  });
}

function revive(recorded: Recorded): StreamAggregatedResult {
  return {
    message: Message.fromJSON(recorded.message),
    stopReason: recorded.stopReason,
    ...(recorded.usage
      ? { metadata: { type: 'modelMetadataEvent', usage: recorded.usage } as never }
      : {}),
  };
}

/** Consecutive text, reasoning or tool-input deltas merged: a smaller journal entry. */
function compact(events: readonly ModelStreamEvent[]): ModelStreamEvent[] {
  const out: ModelStreamEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    const merged = last && mergeDeltas(last, event);
    if (merged) out[out.length - 1] = merged;
    else out.push({ ...event });
  }
  return out;
}

function mergeDeltas(a: ModelStreamEvent, b: ModelStreamEvent): ModelStreamEvent | undefined {
  if (a.type !== 'modelContentBlockDeltaEvent' || b.type !== 'modelContentBlockDeltaEvent') {
    return undefined;
  }
  const [x, y] = [a.delta, b.delta];
  if (x.type === 'textDelta' && y.type === 'textDelta') {
    return { ...a, delta: { ...x, text: x.text + y.text } };
  }
  if (x.type === 'toolUseInputDelta' && y.type === 'toolUseInputDelta') {
    return { ...a, delta: { ...x, input: x.input + y.input } };
  }
  if (
    x.type === 'reasoningContentDelta' &&
    y.type === 'reasoningContentDelta' &&
    x.text !== undefined &&
    y.text !== undefined &&
    !x.signature &&
    !y.signature
  ) {
    return { ...a, delta: { ...x, text: x.text + y.text } };
  }
  return undefined;
}
