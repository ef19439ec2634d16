import type { StreamEvent } from '../../core/events.js';
import type { MastraEventMapper, PendingApproval } from './events.js';
import type { MastraNativeAgent } from './native.js';

export type GenerateOutput = Awaited<ReturnType<MastraNativeAgent['generate']>>;
type Step = GenerateOutput['steps'][number];

/** One part of a step's content (AI SDK's step content, read structurally). */
interface ContentPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly error?: unknown;
}

/**
 * A drained turn's events, from the steps of `agent.generate`: each step's content fed to the
 * stream mapper as the chunks a stream would carry (whole texts, whole calls), so both paths
 * yield the same events but for token deltas.
 */
export function* mapGenerated(
  output: GenerateOutput,
  mapper: MastraEventMapper,
): Generator<StreamEvent> {
  const map = (chunk: unknown) => mapper.map(chunk as never);
  const seen = new Set<string>();
  for (const [n, step] of output.steps.entries()) {
    yield* map({ type: 'step-start', payload: {} });
    for (const [i, part] of (step.content as readonly ContentPart[]).entries()) {
      if (part.toolCallId) seen.add(part.toolCallId);
      yield* mapPart(map, step, part, `${n}-${i}`);
    }
    yield* map({ type: 'step-finish', payload: { output: { usage: step.usage } } });
  }
  const held = heldCall(output);
  if (!held) return yield* mapper.finish();
  // The suspended step is not among the steps: its calls are the output's last ones.
  const calls = output.toolCalls.filter((c) => !seen.has(c.payload.toolCallId));
  if (calls.length > 0) yield* map({ type: 'step-start', payload: {} });
  for (const chunk of calls) yield* map(chunk);
  mapper.approvals.push(held);
  yield* mapper.finish();
}

/** One content part as its chunk: tool calls and results are Mastra's own chunks of the step. */
function* mapPart(
  map: (chunk: unknown) => Generator<StreamEvent>,
  step: Step,
  part: ContentPart,
  key: string,
): Generator<StreamEvent> {
  const { toolCallId, toolName } = part;
  switch (part.type) {
    case 'text':
    case 'reasoning': {
      const id = `${part.type}-${key}`;
      yield* map({ type: `${part.type}-delta`, payload: { id, text: part.text ?? '' } });
      yield* map({ type: `${part.type}-end`, payload: { id } });
      return;
    }
    case 'tool-call':
      yield* map(
        step.toolCalls.find((c) => c.payload.toolCallId === toolCallId) ?? {
          type: 'tool-call',
          payload: { toolCallId, toolName, args: part.input },
        },
      );
      return;
    case 'tool-result': {
      const chunk = step.toolResults.find((c) => c.payload.toolCallId === toolCallId);
      yield* map(
        chunk ?? { type: 'tool-result', payload: { toolCallId, toolName, result: part.output } },
      );
      return;
    }
    case 'tool-error':
      yield* map({ type: 'tool-error', payload: { toolCallId, toolName, error: part.error } });
      return;
    default:
      return;
  }
}

/** The call a suspended generate holds (Mastra suspends at the first held call). */
function heldCall(output: GenerateOutput): PendingApproval | undefined {
  if (output.finishReason !== 'suspended') return undefined;
  const payload = output.suspendPayload as
    | { toolCallId?: string; toolName?: string; args?: unknown; suspendPayload?: unknown }
    | undefined;
  if (!payload?.toolCallId || !payload.toolName) return undefined;
  const { toolCallId, toolName, args } = payload;
  // A tool's own suspend() carries what it asked; an approval gate carries no payload.
  return 'suspendPayload' in payload
    ? { toolCallId, toolName, args, suspended: { payload: payload.suspendPayload ?? null } }
    : { toolCallId, toolName, args };
}
