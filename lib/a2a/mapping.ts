/**
 * A2A's objects as the kernel's: a user message as a run input or as decisions, a reply or a run
 * record as a Task. A task is a run: its id names the session (the task's contextId) and the run,
 * so `tasks/get` and `tasks/cancel` find it with nothing but the id.
 */
import { createHash } from 'node:crypto';
import type { Artifact, Message, Part, Task, TaskStatus } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
} from '@a2a-js/sdk/errors';
import * as z from 'zod/mini';
import { lazySchema } from '../core/lazy-schema.js';
import type { Interruption, Reply } from '../core/requests.js';
import { DecisionsSchema } from '../core/resume.js';
import type { Decision } from '../core/runner.js';
import { isSafeId } from '../transport/ids.js';
import { RunInputSchema, type RunInputWire } from '../transport/protocol.js';

/** Never in a session or run id (SAFE_ID), so a task id splits back unambiguously. */
const SEPARATOR = '~';
/** The metadata keys this server sets on tasks and messages. */
export const META = {
  run: 'io.agent-kernel/run',
  interruptions: 'io.agent-kernel/interruptions',
  error: 'io.agent-kernel/error',
} as const;

export function taskIdOf(sessionId: string, runId: string): string {
  return `${sessionId}${SEPARATOR}${runId}`;
}

/** The run a task id names; anything else is a task nobody has (TaskNotFound, as a guess is). */
export function runOfTask(taskId: string): { sessionId: string; runId: string } {
  const [sessionId, runId, ...rest] = taskId.split(SEPARATOR);
  if (rest.length > 0 || !isSafeId(sessionId) || !isSafeId(runId)) {
    throw new TaskNotFoundError({ message: `Task "${taskId.slice(0, 100)}" was not found.` });
  }
  return { sessionId, runId };
}

/** The client's messageId as the front door's idempotency key (any string: hashed to an id). */
export function requestIdOf(messageId: string): string {
  return `a2a-${createHash('sha256').update(messageId).digest('hex').slice(0, 40)}`;
}

function malformed(message: string, code = 'invalid-request'): RequestMalformedError {
  return new RequestMalformedError({ message, metadata: { code } });
}

/** A user message's checks common to a new turn and a follow-up. */
export function checkUserMessage(message: Message | undefined): Message {
  if (!message) throw malformed('params.message is required.');
  if (!message.messageId) throw malformed('message.messageId is required.');
  if (message.messageId.length > 200) throw malformed('message.messageId is over 200 characters.');
  if (message.role !== Role.ROLE_USER) throw malformed('message.role must be the user role.');
  if (message.parts.length === 0) throw malformed('message.parts must hold at least one part.');
  if (message.parts.length > 16) throw malformed('message.parts holds more than 16 parts.');
  if (message.contextId && !isSafeId(message.contextId)) {
    throw malformed('message.contextId must be 1-128 characters of A-Z a-z 0-9 . _ : -');
  }
  return message;
}

/** A new turn's input: text parts as text, url/raw parts as images or files (the input gate). */
export function inputOf(message: Message): RunInputWire {
  const requests = message.parts.map(requestOf);
  const input = requests.length === 1 && requests[0]?.type === 'text' ? requests[0].text : requests;
  const parsed = RunInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` at parts.${issue.path.join('.')}` : '';
    throw malformed(`Invalid message${at}: ${issue?.message}`, 'invalid-message');
  }
  return parsed.data;
}

function requestOf(part: Part) {
  const content = part.content;
  const image = part.mediaType.startsWith('image/');
  const name = part.filename ? { name: part.filename } : {};
  switch (content?.$case) {
    case 'text':
      return { type: 'text' as const, text: content.value };
    case 'url':
      return image
        ? { type: 'image' as const, url: content.value }
        : { type: 'file' as const, url: content.value, ...name };
    case 'raw': {
      if (!part.mediaType) throw malformed('A raw part needs its mediaType.');
      const data = Buffer.from(content.value).toString('base64');
      return image
        ? { type: 'image' as const, data, mimeType: part.mediaType }
        : { type: 'file' as const, data, mimeType: part.mediaType, ...name };
    }
    case 'data':
      throw new ContentTypeNotSupportedError({
        message:
          'A data part starts no turn: send text, a file or an image (data parts answer a task waiting for input).',
        metadata: { code: 'invalid-message' },
      });
    default:
      throw malformed('A part has no content (text, url, raw or data).');
  }
}

/** Built once, not per message: a data part carries at most 64 decisions. */
const A2aDecisionsSchema = /* @__PURE__ */ lazySchema(() => DecisionsSchema.check(z.maxLength(64)));

/** The decisions of a data part `{ "decisions": [...] }`, if the message has one. */
export function explicitDecisions(message: Message): Decision[] | undefined {
  const data = message.parts.find((p) => p.content?.$case === 'data');
  if (data?.content?.$case !== 'data') return undefined;
  const parsed = A2aDecisionsSchema.safeParse(data.content.value?.decisions);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw malformed(
    `Invalid decisions at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    'invalid-decisions',
  );
}

const APPROVE = new Set(['approve', 'approved', 'yes', 'y', 'ok']);
const DENY = new Set(['deny', 'denied', 'no', 'n', 'reject']);

/**
 * A follow-up's answer to a paused run: a data part `{ "decisions": [...] }` (one per pending
 * call), or the text `approve` / `deny` for all of them.
 */
export function decisionsOf(message: Message, pending: readonly Interruption[]): Decision[] {
  const explicit = explicitDecisions(message);
  if (explicit) return explicit;
  const text = message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join(' ')
    .trim()
    .toLowerCase();
  const status = APPROVE.has(text) ? 'approved' : DENY.has(text) ? 'denied' : undefined;
  if (!status) {
    throw malformed(
      'The task waits for a decision: answer "approve" or "deny", or a data part {"decisions":[{"id","status"}]}.',
      'invalid-decisions',
    );
  }
  return pending.map((i) => ({ id: i.id, status }));
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: {},
  };
}

function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata: {},
  };
}

export function agentMessage(
  ref: { contextId: string; taskId: string },
  parts: Part[],
  metadata: Record<string, unknown> = {},
): Message {
  return {
    messageId: `${ref.taskId}${SEPARATOR}${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12)}`,
    contextId: ref.contextId,
    taskId: ref.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a paused run asks, in words and as data: the calls and the answer that approves them. */
export function pausedMessage(ref: { contextId: string; taskId: string }, reply: Reply): Message {
  const interruptions = reply.status === 'paused' ? reply.interruptions : [];
  const asked = interruptions
    .map((i) => (i.toolName ? `${i.toolName} ${JSON.stringify(i.arguments ?? {})}` : i.message))
    .join('; ');
  const decisions = interruptions.map((i) => ({ id: i.id, status: 'approved' }));
  const text = `${reply.text ? `${reply.text}\n\n` : ''}Waiting for your decision: ${asked}. Answer on this task with "approve" or "deny", or a data part {"decisions": [...]}.`;
  return agentMessage(ref, [textPart(text), dataPart({ interruptions, decisions })], {
    [META.interruptions]: interruptions,
  });
}

export function status(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}

/** The reply's text (and structured output) as the task's one artifact. */
export function replyArtifact(reply: Reply): Artifact {
  const parts = [textPart(reply.text ?? '')];
  if (reply.status === 'completed' && reply.output !== undefined)
    parts.push(dataPart(reply.output));
  return {
    artifactId: 'reply',
    name: 'reply',
    description: '',
    parts,
    metadata: {},
    extensions: [],
  };
}

/** A task as a turn's reply shows it: completed with its artifact, or waiting for input. */
export function taskOfReply(reply: Reply, history: Message[] = []): Task {
  const ref = { contextId: reply.sessionId, taskId: taskIdOf(reply.sessionId, reply.runId) };
  const run = { sessionId: reply.sessionId, runId: reply.runId, agent: reply.agent };
  const base = { id: ref.taskId, contextId: ref.contextId, history, metadata: { [META.run]: run } };
  if (reply.status === 'paused') {
    return {
      ...base,
      status: status(TaskState.TASK_STATE_INPUT_REQUIRED, pausedMessage(ref, reply)),
      artifacts: [],
    };
  }
  const done = agentMessage(ref, [textPart(reply.text)]);
  return {
    ...base,
    status: status(TaskState.TASK_STATE_COMPLETED, done),
    artifacts: [replyArtifact(reply)],
  };
}

/** A public run record (`FrontDoor.readRun`) as its task. */
export function taskOfRecord(record: Record<string, unknown>): Task {
  const sessionId = String(record.sessionId);
  const runId = String(record.runId);
  const reply = record.reply as Reply | undefined;
  const input = typeof record.input === 'string' ? record.input : undefined;
  const ref = { contextId: sessionId, taskId: taskIdOf(sessionId, runId) };
  const history: Message[] = input
    ? [{ ...agentMessage(ref, [textPart(input)]), role: Role.ROLE_USER }]
    : [];
  if ((record.status === 'completed' || record.status === 'paused') && reply) {
    return taskOfReply(reply, history);
  }
  const run = { sessionId, runId, agent: record.agent };
  const base = {
    id: ref.taskId,
    contextId: sessionId,
    history,
    artifacts: [],
    metadata: { [META.run]: run },
  };
  if (record.status === 'queued')
    return { ...base, status: status(TaskState.TASK_STATE_SUBMITTED) };
  if (record.status === 'running') return { ...base, status: status(TaskState.TASK_STATE_WORKING) };
  const error = record.error as { code: string; message: string } | undefined;
  const failed = agentMessage(ref, [textPart(error?.message ?? 'The run failed.')], {
    [META.error]: error ?? { code: 'internal-error' },
  });
  return { ...base, status: status(TaskState.TASK_STATE_FAILED, failed) };
}
