import {
  describeList,
  fail,
  gateRaw,
  issueLine,
  type ParseOptions,
  type ParseResult,
  type RawMessage,
} from './gate.js';
import {
  array,
  BAD,
  boolean,
  type Check,
  type Issue,
  int,
  matches,
  min,
  number,
  oneOfValues,
  optional,
  strictObject,
  string,
  taggedUnion,
  unknown,
} from './hand-check.js';
import { isPrincipal, PRINCIPAL_RULE, SAFE_ID, SAFE_ID_RULE } from './ids.js';
import type { EventsQueueMessage } from './protocol.js';

/**
 * EventsQueueMessageSchema (protocol.ts) written out by hand, for the fan-out: it checks nothing
 * else, and zod was the largest part of its bundle (issue #29). Same accepted values, same parsed
 * value, same `error` as parseMessage with the schema (a property test keeps the two in step:
 * test/unit/transport/events-queue-check.test.ts). A change to the schema must be made here too.
 */

const safeId = (name: string) => string({}, matches(SAFE_ID, `${name} must be ${SAFE_ID_RULE}`));
const text = string();
const seq = int(min(0));

const Usage = strictObject({ inputTokens: seq, outputTokens: seq });

const Interruption = strictObject({
  id: string({ min: 1 }),
  kind: oneOfValues('tool-approval', 'input'),
  toolName: optional(text),
  arguments: optional(unknown),
  message: optional(text),
});

const AgentReply = strictObject({
  status: oneOfValues('completed'),
  runId: text,
  sessionId: text,
  agent: text,
  text,
  output: optional(unknown),
  usage: optional(Usage),
});

/** core/events.ts's StreamEventSchema: each type's fields after `runId` and `type`. */
const EVENT_FIELDS: Record<string, Record<string, Check>> = {
  'run-started': { sessionId: text, agent: text },
  'message-start': { messageId: text },
  'text-delta': { messageId: text, delta: text },
  'message-end': { messageId: text },
  'reasoning-start': { reasoningId: text },
  'reasoning-delta': { reasoningId: text, delta: text },
  'reasoning-end': { reasoningId: text },
  'tool-call-start': { toolCallId: text, toolName: text },
  'tool-call-args': { toolCallId: text, delta: text },
  'tool-call-end': { toolCallId: text },
  'tool-call-result': {
    toolCallId: text,
    toolName: text,
    result: unknown,
    isError: optional(boolean),
    replayed: optional(oneOfValues(true)),
  },
  'step-start': { stepId: text },
  'step-end': { stepId: text, usage: optional(Usage) },
  'run-paused': { sessionId: text, interruptions: array(Interruption, { min: 1 }) },
  'run-finished': { reply: AgentReply },
  'run-retrying': { code: text, message: text, retryInSeconds: optional(number(min(0))) },
  'run-error': { code: text, message: text },
};

const StreamEvent = taggedUnion(
  'type',
  new Map(
    Object.entries(EVENT_FIELDS).map(([type, fields]) => [
      type,
      strictObject({ runId: text, type: oneOfValues(type), ...fields }),
    ]),
  ),
);

const EventsMessage = strictObject({
  type: oneOfValues('events'),
  sessionId: safeId('sessionId'),
  runId: safeId('runId'),
  seq,
  from: optional(seq),
  events: array(StreamEvent, { min: 1 }),
});

const QueueMessage = strictObject({
  message: EventsMessage,
  connectionId: optional(string({ min: 1, max: 256 })),
  owner: optional(
    string({}, (s) => (isPrincipal(s) ? undefined : `principal must be ${PRINCIPAL_RULE}`)),
  ),
  sentAt: int(min(0)),
});

/** What parseMessage(EventsQueueMessageSchema, raw, options) answers, without zod. */
export function parseEventsQueueMessage(
  raw: RawMessage,
  options: ParseOptions = {},
): ParseResult<EventsQueueMessage> {
  const gated = gateRaw(raw, options);
  if (!gated.ok) return gated.error;
  const issues: Issue[] = [];
  const checked = QueueMessage(gated.value, [], issues);
  if (checked !== BAD) return { ok: true, message: checked as EventsQueueMessage };
  const described = describeList(issues, (issue) => issueLine(issue.path, issue.message));
  return fail('invalid-message', described, gated.value);
}
