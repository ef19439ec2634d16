import { EventEncoder } from '@ag-ui/encoder';
import type { FrontDoor } from '../../app/front-door.js';
import { AgentKernelError, InvalidRequest } from '../../core/errors.js';
import type { StreamEvent } from '../../core/events.js';
import type { Reply } from '../../core/requests.js';
import type { Decision } from '../../core/runner.js';
import { toAgUiEvent } from '../../transport/ag-ui.js';
import { type AgUiRunInput, AgUiRunInputSchema, agUiRunText } from '../../transport/ag-ui-input.js';
import { parseMessage, type RawMessage } from '../../transport/parse.js';
import type { Deployment } from '../wiring/deployment.js';
import { type EventSink, frontDoorWith, type SseResponse, streamingTurns } from './stream-turns.js';

/** A `POST /ag-ui` request: its body, the caller, and its `Idempotency-Key` if any. */
export interface AgUiRequest {
  body: RawMessage;
  principal: unknown;
  requestId?: string;
}

/**
 * `POST /ag-ui`: an AG-UI `RunAgentInput` (threadId = our session; checked by the input gate
 * with lib/transport/ag-ui-input.ts's strict schema, as every front's input) → SSE of AG-UI events
 * (lib/transport/ag-ui.ts maps ours, @ag-ui/encoder frames them). A run's input is its last user
 * message; the agent is `forwardedProps.agent` (default: the first deployed). A `resume` answers
 * the paused run the client names (`parentRunId`, else the one holding the interrupts it
 * answers): `resolved` approves (`payload.arguments` edits the call), `cancelled` or
 * `payload.approved === false` denies. Through the same front door as `POST /runs`, with its
 * `Idempotency-Key`: a repeated key runs nothing and streams the first answer again.
 */
export async function agUiRun(
  deployed: Deployment,
  request: AgUiRequest,
  out: SseResponse,
  redact: (text: string) => string,
): Promise<void> {
  const parsed = parseMessage(AgUiRunInputSchema, request.body);
  if (!parsed.ok) throw new AgentKernelError(parsed.error.code, parsed.error.message);
  const input = parsed.message;
  const encoder = new EventEncoder();
  const send = (event: StreamEvent) => out.frame(encoder.encodeSSE(toAgUiEvent(event) as never));
  const sink = (): EventSink => ({ push: async (event) => send(event), close: async () => {} });
  const door = frontDoorWith(deployed, streamingTurns(deployed, sink), redact);
  const { principal } = request;
  const sessionId = input.threadId;
  const key = request.requestId === undefined ? {} : { requestId: request.requestId };
  let reply: Reply;
  if (input.resume && input.resume.length > 0) {
    const runId = await pausedRunOf(deployed, door, principal, input);
    const decisions = input.resume.map(decisionOf);
    reply = await door.resumeNow({ principal, ...key, sessionId, runId, decisions });
  } else {
    const agents = deployed.runtime.agents.map((a) => a.name);
    const agent = input.forwardedProps?.agent ?? agents[0];
    if (!agent) throw new InvalidRequest('No agent is deployed.');
    const text = agUiRunText(input);
    reply = await door.runNow({ principal, ...key, agent, sessionId, input: text });
  }
  // A repeated Idempotency-Key ran nothing: the first answer, as the events of a short run.
  if (!out.started) for (const event of replayOf(reply)) send(event);
}

/**
 * The paused run a resume answers: `parentRunId` when the client names it, else the thread's
 * paused run holding the interrupts it answers (a thread may have several). Owner-checked.
 */
async function pausedRunOf(
  deployed: Deployment,
  door: FrontDoor,
  principal: unknown,
  input: AgUiRunInput,
): Promise<string> {
  const { paused } = await door.readSession(principal, input.threadId);
  if (input.parentRunId) return input.parentRunId;
  const answered = new Set((input.resume ?? []).map((entry) => entry.interruptId));
  for (const { runId } of paused) {
    const run = await deployed.runtime.pausedRuns?.get(input.threadId, runId);
    if (run?.interruptions.some((interruption) => answered.has(interruption.id))) return runId;
  }
  const first = [...answered][0]?.slice(0, 100);
  throw new InvalidRequest(
    `No paused run of thread "${input.threadId}" waits for interrupt "${first}": name it in parentRunId.`,
  );
}

/** A stored reply as the events a client would have seen, for a repeated request. */
function replayOf(reply: Reply): StreamEvent[] {
  const { runId, sessionId, agent } = reply;
  const messageId = `${runId}:reply`;
  const text: StreamEvent[] = reply.text
    ? [
        { type: 'message-start', runId, messageId },
        { type: 'text-delta', runId, messageId, delta: reply.text },
        { type: 'message-end', runId, messageId },
      ]
    : [];
  const end: StreamEvent =
    reply.status === 'completed'
      ? { type: 'run-finished', runId, reply }
      : { type: 'run-paused', runId, sessionId, interruptions: reply.interruptions };
  return [{ type: 'run-started', runId, sessionId, agent }, ...text, end];
}

function decisionOf(entry: NonNullable<AgUiRunInput['resume']>[number]): Decision {
  const payload = entry.payload ?? {};
  const approved = entry.status === 'resolved' && payload.approved !== false;
  if (!approved) return { id: entry.interruptId, status: 'denied' };
  return {
    id: entry.interruptId,
    status: 'approved',
    ...(payload.arguments === undefined ? {} : { arguments: payload.arguments }),
  };
}
