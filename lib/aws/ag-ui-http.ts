import type { Message } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { InvalidRequest } from '../core/errors.js';
import type { Decision } from '../core/runner.js';
import { toAgUiEvent } from '../transport/ag-ui.js';
import type { Deployment } from './runtime.js';
import { type EventSink, frontDoorWith, type SseResponse, streamingTurns } from './stream-http.js';

/**
 * `POST /ag-ui`: an AG-UI `RunAgentInput` (threadId = our session) → SSE of AG-UI events
 * (lib/transport/ag-ui.ts maps ours, @ag-ui/encoder frames them). A run's input is its last user
 * message; the agent is `forwardedProps.agent` (default: the first deployed). A `resume` answers
 * the thread's paused run: `resolved` approves (`payload.arguments` edits the call), `cancelled`
 * or `payload.approved === false` denies. Through the same front door as `POST /runs`.
 */
export async function agUiRun(
  deployed: Deployment,
  body: string,
  principal: unknown,
  out: SseResponse,
  redact: (text: string) => string,
): Promise<void> {
  const input = parseInput(body);
  const encoder = new EventEncoder();
  const sink = (): EventSink => ({
    push: async (event) => out.frame(encoder.encodeSSE(toAgUiEvent(event) as never)),
    close: async () => undefined,
  });
  const door = frontDoorWith(deployed, streamingTurns(deployed, sink), redact);
  const sessionId = input.threadId;
  if (input.resume && input.resume.length > 0) {
    const { paused } = await door.readSession(principal, sessionId);
    const runId = paused.at(-1)?.runId;
    if (!runId) throw new InvalidRequest(`Thread "${sessionId}" has no paused run to resume.`);
    const decisions = input.resume.map(decisionOf);
    await door.resumeNow({ principal, sessionId, runId, decisions });
    return;
  }
  const agents = deployed.runtime.agents.map((a) => a.name);
  const named = (input.forwardedProps as { agent?: unknown } | undefined)?.agent;
  const agent = typeof named === 'string' ? named : agents[0];
  if (!agent) throw new InvalidRequest('No agent is deployed.');
  await door.runNow({ principal, agent, sessionId, input: lastUserText(input.messages) });
}

function parseInput(body: string) {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new InvalidRequest('The body is not JSON: send an AG-UI RunAgentInput.');
  }
  const parsed = RunAgentInputSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidRequest(`Not an AG-UI RunAgentInput: ${parsed.error.message.slice(0, 500)}`);
  }
  return parsed.data;
}

function lastUserText(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const content = last?.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? [])
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join('')
          .trim();
  if (!text) throw new InvalidRequest('The input has no user message to run.');
  return text;
}

function decisionOf(entry: {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}): Decision {
  const payload = (entry.payload ?? {}) as { approved?: unknown; arguments?: unknown };
  const approved = entry.status === 'resolved' && payload.approved !== false;
  if (!approved) return { id: entry.interruptId, status: 'denied' };
  return {
    id: entry.interruptId,
    status: 'approved',
    ...(payload.arguments === undefined ? {} : { arguments: payload.arguments }),
  };
}
