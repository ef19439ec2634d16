/**
 * The SDK's request-handler interface answered by the front door, one handler per request (a
 * Lambda keeps no task between requests): a message starts a run (or, naming a task waiting for
 * input, resumes it), a task read is a run read, a cancel denies the pending calls. Nothing is
 * kept here: runs, sessions and idempotency are the front door's.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  JsonRpcTransportError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { cancelPausedRun } from '../app/cancel-run.js';
import type { FrontDoor } from '../app/front-door.js';
import { AgentKernelError } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import type { Reply } from '../core/requests.js';
import {
  agentMessage,
  checkUserMessage,
  decisionsOf,
  explicitDecisions,
  inputOf,
  META,
  replyArtifact,
  requestIdOf,
  runOfTask,
  status,
  taskIdOf,
  taskOfRecord,
  taskOfReply,
  textPart,
} from './mapping.js';

/** Where a turn's events go while it runs (message/stream), by the run they belong to. */
export type TurnEvents = (run: { sessionId: string; runId: string }, event: StreamEvent) => void;

export interface KernelHandlerOptions {
  readonly agent: string;
  readonly card: AgentCard;
  readonly principal: unknown;
  /** The front door of this request; its turns' events go to `events` when given. */
  readonly door: (events?: TurnEvents) => FrontDoor;
}

const NOT_FOUND = new Set(['not-found', 'agent-not-found', 'paused-run-not-found']);
const INVALID = new Set([
  'invalid-request',
  'invalid-message',
  'invalid-decisions',
  'too-large',
  'too-deep',
  'bad-json',
  'forbidden-key',
]);
const NOT_NOW = new Set(['run-already-resumed', 'session-paused', 'session-busy']);

/** The kernel's refusals as A2A errors; the kernel's code rides in the ErrorInfo metadata. */
export function a2aErrorOf(err: unknown): Error {
  if (err instanceof A2AError) return err;
  if (!(err instanceof AgentKernelError)) {
    return new JsonRpcTransportError({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
  }
  const options = { message: err.message, metadata: { code: err.code } };
  if (NOT_FOUND.has(err.code)) return new TaskNotFoundError(options);
  if (INVALID.has(err.code)) return new RequestMalformedError(options);
  if (NOT_NOW.has(err.code)) return new UnsupportedOperationError(options);
  if (err.code === 'run-not-cancelable') return new TaskNotCancelableError(options);
  // Quotas, idempotency conflicts, a failed run: the request was fine, the server refused it.
  const code = err.code === 'internal-error' ? -32603 : -32600;
  return new JsonRpcTransportError({
    jsonrpc: '2.0',
    id: null,
    error: { code, message: `${err.message} (${err.code})` },
  });
}

export class KernelRequestHandler implements A2ARequestHandler {
  readonly #options: KernelHandlerOptions;

  constructor(options: KernelHandlerOptions) {
    this.#options = options;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#options.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError({ message: 'No extended agent card here.' });
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const message = checkUserMessage(params.message);
    const door = this.#options.door();
    const reply = await this.#turn(door, message).catch((err) => {
      throw a2aErrorOf(err);
    });
    return withHistory(taskOfReply(reply), message, params.configuration?.historyLength);
  }

  /**
   * The turn's events as they come: the task (working), the reply's text as appends to its
   * artifact, then the final status. A refusal before the turn starts is a JSON-RPC error; a
   * failure after it is the task's `failed` status.
   */
  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const message = checkUserMessage(params.message);
    const queue = new Queue<StreamResponse>();
    let started: { sessionId: string; runId: string } | undefined;
    let appended = false;
    const onEvent: TurnEvents = (run, event) => {
      const ref = { contextId: run.sessionId, taskId: taskIdOf(run.sessionId, run.runId) };
      if (!started) {
        started = run;
        const task = {
          id: ref.taskId,
          contextId: ref.contextId,
          status: status(TaskState.TASK_STATE_WORKING),
          artifacts: [],
          history: [{ ...message, ...ref }],
          metadata: { [META.run]: { ...run, agent: this.#options.agent } },
        };
        queue.push({ payload: { $case: 'task', value: task } });
      }
      if (event.type === 'text-delta' && event.delta) {
        const artifact = { ...replyArtifact({ ...emptyReply(run), text: event.delta }) };
        const value = { ...ref, artifact, append: appended, lastChunk: false, metadata: {} };
        appended = true;
        queue.push({ payload: { $case: 'artifactUpdate', value } });
      }
    };
    const door = this.#options.door(onEvent);
    this.#turn(door, message).then(
      (reply) => {
        if (!started) {
          // A replay (same messageId) runs nothing: the first request's task, at once.
          queue.push({ payload: { $case: 'task', value: taskOfReply(reply, [message]) } });
        } else {
          queue.push(...finalEvents(reply));
        }
        queue.close();
      },
      (err) => {
        if (!started) return queue.fail(a2aErrorOf(err));
        queue.push(failedEvent(started, err));
        queue.close();
      },
    );
    yield* queue;
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    const { sessionId, runId } = runOfTask(params.id);
    const door = this.#options.door();
    const record = await door.readRun(this.#options.principal, sessionId, runId).catch((err) => {
      throw a2aErrorOf(err);
    });
    const task = taskOfRecord(record as Record<string, unknown>);
    const keep = params.historyLength;
    if (keep !== undefined) task.history = keep === 0 ? [] : task.history.slice(-keep);
    return task;
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const { sessionId, runId } = runOfTask(params.id);
    const door = this.#options.door();
    const request = { principal: this.#options.principal, sessionId, runId };
    const reply = await cancelPausedRun(door, request).catch((err) => {
      throw a2aErrorOf(err);
    });
    const task = taskOfReply(reply);
    return { ...task, status: status(TaskState.TASK_STATE_CANCELED, task.status?.message) };
  }

  /** A new turn, or (the message names a task) the answer to the run it paused. */
  async #turn(door: FrontDoor, message: Message): Promise<Reply> {
    const { principal, agent } = this.#options;
    const requestId = requestIdOf(message.messageId);
    if (!message.taskId) {
      const input = inputOf(message);
      const sessionId = message.contextId ? { sessionId: message.contextId } : {};
      return door.runNow({ principal, requestId, agent, ...sessionId, input });
    }
    const { sessionId, runId } = runOfTask(message.taskId);
    if (message.contextId && message.contextId !== sessionId) {
      throw new RequestMalformedError({
        message: `message.contextId is not the context of task "${message.taskId}".`,
        metadata: { code: 'invalid-request' },
      });
    }
    const run = (await door.readRun(principal, sessionId, runId)) as {
      agent: string;
      status: string;
      reply?: Reply;
    };
    if (run.agent !== agent) {
      throw new TaskNotFoundError({ message: `Task "${message.taskId}" was not found.` });
    }
    const notWaiting = () =>
      new UnsupportedOperationError({
        message: `Task "${message.taskId}" is not waiting for input (its run is ${run.status}).`,
        metadata: { code: 'paused-run-not-found' },
      });
    // Explicit decisions go to the front door even once the run ended: a follow-up sent again
    // (same messageId) gets its first answer there; "approve" needs the pending calls' ids.
    const pending = run.reply?.status === 'paused' && run.status === 'paused';
    const decisions =
      explicitDecisions(message) ??
      (pending && run.reply?.status === 'paused'
        ? decisionsOf(message, run.reply.interruptions)
        : undefined);
    if (!decisions) throw notWaiting();
    return door.resumeNow({ principal, requestId, sessionId, runId, decisions }).catch((err) => {
      if (err instanceof AgentKernelError && err.code === 'paused-run-not-found')
        throw notWaiting();
      throw err;
    });
  }

  // Push notifications need a callback the server keeps: a stateless function keeps none.
  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError({
      message: 'Push notifications are not supported.',
    });
  }
  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError({
      message: 'Push notifications are not supported.',
    });
  }
  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError({
      message: 'Push notifications are not supported.',
    });
  }
  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError({
      message: 'Push notifications are not supported.',
    });
  }
  // biome-ignore lint/correctness/useYield: refused before any event
  async *resubscribe(): AsyncGenerator<StreamResponse> {
    throw new UnsupportedOperationError({
      message: 'Resubscribing is not supported: read the task with tasks/get.',
    });
  }
  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError({ message: 'Listing tasks is not supported.' });
  }
}

function withHistory(task: Task, message: Message, historyLength: number | undefined): Task {
  if (historyLength === 0) return task;
  return { ...task, history: [{ ...message, contextId: task.contextId, taskId: task.id }] };
}

function emptyReply(run: { sessionId: string; runId: string }): Reply {
  return { status: 'completed', ...run, agent: '', text: '' };
}

/** The end of a streamed turn: the whole reply as the artifact's last chunk, then the status. */
function finalEvents(reply: Reply): StreamResponse[] {
  const task = taskOfReply(reply);
  const ref = { taskId: task.id, contextId: task.contextId };
  const update = { ...ref, status: task.status, metadata: {} };
  const events: StreamResponse[] = [];
  const [artifact] = task.artifacts;
  if (artifact) {
    const value = { ...ref, artifact, append: false, lastChunk: true, metadata: {} };
    events.push({ payload: { $case: 'artifactUpdate', value } });
  }
  events.push({ payload: { $case: 'statusUpdate', value: update } });
  return events;
}

function failedEvent(run: { sessionId: string; runId: string }, err: unknown): StreamResponse {
  const ref = { contextId: run.sessionId, taskId: taskIdOf(run.sessionId, run.runId) };
  const known = err instanceof AgentKernelError;
  const error = known
    ? { code: err.code, message: err.message }
    : { code: 'internal-error', message: 'Internal error' };
  const message = agentMessage(ref, [textPart(error.message)], { [META.error]: error });
  const value = { ...ref, status: status(TaskState.TASK_STATE_FAILED, message), metadata: {} };
  return { payload: { $case: 'statusUpdate', value } };
}

/** An async queue the turn's callbacks fill and the response stream drains. */
class Queue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #done = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  push(...items: T[]): void {
    this.#items.push(...items);
    this.#wake?.();
  }
  close(): void {
    this.#done = true;
    this.#wake?.();
  }
  fail(error: Error): void {
    this.#error = error;
    this.close();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#error) throw this.#error;
      if (this.#done) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
