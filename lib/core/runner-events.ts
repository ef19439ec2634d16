import { RunnerError } from './errors.js';
import { type StreamEvent, StreamEventSchema, TERMINAL_EVENT_TYPES } from './events.js';

/** The runtime's own events: a runner that yields one would end or restart the stream. */
const RUNTIME_ONLY = new Set<string>([...TERMINAL_EVENT_TYPES, 'run-started']);

/** Token-level events a non-streaming runner's turn does not forward (`supportsStreaming`). */
const TOKEN_EVENTS = new Set<string>([
  'message-start',
  'text-delta',
  'message-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
]);

/**
 * What a runner yielded, checked before any client sees it: a typed event of this run, never a
 * bare string, an unknown shape, or one of the runtime's own events.
 */
export function checkRunnerEvent(value: unknown, runner: string, runId: string): StreamEvent {
  let event: StreamEvent;
  if (isPlainTokenEvent(value)) event = value;
  else {
    const parsed = StreamEventSchema.safeParse(value);
    if (!parsed.success) {
      throw invalid(runner, `${describe(value)} (${parsed.error.issues[0]?.message ?? 'invalid'})`);
    }
    event = parsed.data;
  }
  if (RUNTIME_ONLY.has(event.type)) {
    throw invalid(runner, `a "${event.type}" event, which only the runtime emits`);
  }
  if (event.runId !== runId) {
    throw invalid(runner, `an event of run "${event.runId}" during run "${runId}"`);
  }
  return event;
}

/** The id field of each token-level (or step) event, and whether it carries a `delta`. */
const TOKEN_SHAPES: Record<string, readonly [id: string, delta: boolean] | undefined> = {
  'message-start': ['messageId', false],
  'text-delta': ['messageId', true],
  'message-end': ['messageId', false],
  'reasoning-start': ['reasoningId', false],
  'reasoning-delta': ['reasoningId', true],
  'reasoning-end': ['reasoningId', false],
  'tool-call-args': ['toolCallId', true],
  'tool-call-end': ['toolCallId', false],
  // Every step of every turn opens and closes one (a step-end with usage: checked below).
  'step-start': ['stepId', false],
  'step-end': ['stepId', false],
};

/**
 * A token-level event checked by hand, exactly as its strict schema would (no other keys): the
 * schema's union walk per delta was the largest cost of the runtime's own on a streamed turn.
 * Anything else goes through the schema.
 */
function isPlainTokenEvent(value: unknown): value is StreamEvent {
  if (value === null || typeof value !== 'object') return false;
  const event = value as Record<string, unknown>;
  const shape = typeof event.type === 'string' ? TOKEN_SHAPES[event.type] : undefined;
  if (!shape || typeof event.runId !== 'string' || typeof event[shape[0]] !== 'string')
    return false;
  if (shape[1] && typeof event.delta !== 'string') return false;
  const keys = Object.keys(event).length;
  if (keys === (shape[1] ? 4 : 3)) return true;
  // A step-end with its usage (every AI SDK step has one): the strict UsageSchema, by hand.
  return event.type === 'step-end' && keys === 4 && isUsage(event.usage);
}

function isUsage(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { inputTokens, outputTokens } = value as Record<string, unknown>;
  return (
    Object.keys(value).length === 2 &&
    Number.isSafeInteger(inputTokens) &&
    (inputTokens as number) >= 0 &&
    Number.isSafeInteger(outputTokens) &&
    (outputTokens as number) >= 0
  );
}

export function isTokenEvent(event: StreamEvent): boolean {
  return TOKEN_EVENTS.has(event.type);
}

/** Text the runtime speaks itself (a hook's halt, a non-streaming runner's reply) as one message. */
export function* textAsEvents(
  runId: string,
  text: string,
  origin: 'halt' | 'reply',
): Generator<StreamEvent> {
  if (!text) return;
  const messageId = `${origin}-${runId}`;
  yield { type: 'message-start', runId, messageId };
  yield { type: 'text-delta', runId, messageId, delta: text };
  yield { type: 'message-end', runId, messageId };
}

function invalid(runner: string, what: string): RunnerError {
  return new RunnerError(`Runner "${runner}" yielded ${what}; runners yield typed stream events.`, {
    code: 'invalid-runner-event',
  });
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'a bare string';
  if (value === null || typeof value !== 'object')
    return `a ${value === null ? 'null' : typeof value}`;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? `an invalid "${type}" event` : 'an object without a type';
}
