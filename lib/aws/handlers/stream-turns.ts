import type { Writable } from 'node:stream';
import { FrontDoor } from '../../app/front-door.js';
import type { SentSeqs, TurnRunner } from '../../app/ports.js';
import { AgentKernelError } from '../../core/errors.js';
import type { StreamEvent } from '../../core/events.js';
import type { Reply } from '../../core/requests.js';
import { httpResponseStream, quietWrite } from '../middleware/response-stream.js';
import type { Deployment } from '../wiring/deployment.js';

// What both streaming routes share (stream-http.ts's `POST /runs`, ag-ui-http.ts's `POST /ag-ui`):
// the front door of one request, its turns streamed into a sink, and the SSE response.

/** The deployment's front door (as frontDoorOf builds it), its turns run by `turns`. */
export function frontDoorWith(
  deployed: Deployment,
  turns: TurnRunner,
  redact: (text: string) => string,
): FrontDoor {
  const { runtime, config } = deployed;
  return new FrontDoor({
    sessions: runtime.sessions,
    pausedRuns: { get: (s, r) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined) },
    runs: deployed.runs,
    idempotency: deployed.idempotency,
    idKey: () => deployed.idKey.key(),
    agents: {
      has: (name) => runtime.agents.some((agent) => agent.name === name),
      cards: () => runtime.agents.map((agent) => agent.card()),
    },
    turns,
    redact,
    // The Function URL has no API Gateway throttle: the principal's quotas apply here too.
    ...(deployed.fairUse ? { fairUse: deployed.fairUse } : {}),
    ...(config.APPROVER_PRINCIPALS ? { approvers: config.APPROVER_PRINCIPALS } : {}),
  });
}

/** Where a turn's events go: pushed in order, closed once the turn ended. */
export interface EventSink {
  push(event: StreamEvent): Promise<void>;
  close(): Promise<void>;
  /** A sink that numbers its messages (the native batcher): the seq its next one would take. */
  readonly nextSeq?: number;
}

/** Whose turn a sink streams (the stored events' binding) and whether it continues a run. */
export interface SinkOwner {
  readonly owner: string;
  readonly incarnation?: string | undefined;
  readonly resume: boolean;
}

/**
 * The runtime's turns as the front door calls them, each turn's events into a sink of its own
 * (`open`): the native batcher, or AG-UI's encoder.
 */
export function streamingTurns(
  deployed: Deployment,
  open: (sessionId: string, runId: string, who: SinkOwner) => EventSink | Promise<EventSink>,
): TurnRunner {
  const { runtime } = deployed;
  return {
    run: async (agent, sessionId, input, options) => {
      const { principal: owner, incarnation } = options;
      const sink = await open(sessionId, options.runId, { owner, incarnation, resume: false });
      const { sent, ...rest } = options;
      return drain(runtime.stream(agent, sessionId, input, rest), sink, sent);
    },
    resume: async (sessionId, runId, decisions, options) => {
      const sink = await open(sessionId, runId, { owner: options.principal, resume: true });
      const { sent, ...rest } = options;
      return drain(runtime.resumeStream(sessionId, runId, decisions, rest), sink, sent);
    },
    clearSession: (sessionId, options) => runtime.clearSession(sessionId, options),
  };
}

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/**
 * Streams a turn's events and answers as `Runtime.run` would: its reply, or its error. The
 * terminal event is the last one pushed: once closed, it went out in the sink's last message.
 */
async function drain(
  events: AsyncIterable<StreamEvent>,
  batcher: EventSink,
  sent?: SentSeqs,
): Promise<Reply> {
  let ended = false;
  let agent = '';
  let text = '';
  let reply: Reply | undefined;
  let failure: AgentKernelError | undefined;
  for await (const event of events) {
    if (event.type === 'run-started') agent = event.agent;
    if (event.type === 'text-delta') text += event.delta;
    if (event.type === 'run-finished') reply = event.reply;
    if (event.type === 'run-paused') {
      const { runId, sessionId, interruptions } = event;
      reply = {
        status: 'paused',
        runId,
        sessionId,
        agent,
        interruptions,
        ...(text ? { text } : {}),
      };
    }
    if (event.type === 'run-error') failure = new AgentKernelError(event.code, event.message);
    ended ||= TERMINAL.has(event.type);
    await batcher.push(event);
  }
  await batcher.close();
  if (sent && ended && batcher.nextSeq !== undefined) sent.terminal = batcher.nextSeq - 1;
  if (failure) throw failure;
  if (!reply) throw new AgentKernelError('internal-error', 'The run ended early.');
  return reply;
}

/** The response: its prelude waits for the first event, so an early refusal is an HTTP error. */
export class SseResponse {
  #stream: Writable;
  #body: Writable | undefined;
  constructor(stream: Writable) {
    this.#stream = stream;
  }

  get started(): boolean {
    return this.#body !== undefined;
  }

  /** Called once the client went away (a follow stops polling then). */
  onClose(callback: () => void): void {
    this.#stream.once('close', callback);
  }

  /** Writes one encoded frame, the 200 prelude first. */
  frame(frame: string): void {
    this.#body ??= httpResponseStream(this.#stream, {
      statusCode: 200,
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      },
    });
    quietWrite(this.#body, frame);
  }

  error(response: { statusCode: number; headers: Record<string, string>; body: string }): void {
    const { statusCode, headers, body } = response;
    this.#body = httpResponseStream(this.#stream, { statusCode, headers });
    quietWrite(this.#body, body);
  }

  end(): void {
    const body = this.#body ?? this.#stream;
    if (!body.destroyed && !body.writableEnded) body.end();
  }
}
