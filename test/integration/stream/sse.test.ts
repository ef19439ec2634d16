import { describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../lib/local/stack.js';
import { http, pause, useLocalStack, useWsUsers } from '../local/clients.js';

interface Frame {
  id?: string;
  event: string;
  data: any;
  at: number;
}

/** POST /runs on the stream function's URL; every SSE frame with its arrival time. */
async function streamRun(
  stack: LocalStack,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${stack.streamUrl}/runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const frames: Frame[] = [];
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    return { status: response.status, response, frames, json: (await response.json()) as any };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      frames.push(parseFrame(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
  return { status: response.status, response, frames, json: undefined as any };
}

function parseFrame(text: string): Frame {
  const frame: Partial<Frame> = { at: performance.now() };
  for (const line of text.split('\n')) {
    const [key, ...rest] = line.split(': ');
    const value = rest.join(': ');
    if (key === 'id') frame.id = value;
    if (key === 'event') frame.event = value;
    if (key === 'data') frame.data = JSON.parse(value);
  }
  return frame as Frame;
}

/** The run's events as compared across transports: type, and what is not per-run. */
function shapeOf(events: any[]): string[] {
  return events.map((e) => (e.type === 'text-delta' ? `${e.type}:${e.delta}` : e.type));
}

describe('POST /runs as SSE (Lambda response streaming, local Function URL)', () => {
  const stack = useLocalStack();
  const user = useWsUsers(stack);

  it('streams the run as events messages whose order and seq match the WebSocket stream', async () => {
    // Prepare: the same turn (a tool call) over the WebSocket, in its own session
    const input = 'What time is it in UTC?';
    const ws = await user('sse-alice');
    ws.send({ action: 'run', requestId: 'ws-1', agent: 'demo', sessionId: 'ws-s', input });
    const accepted = await ws.answer('ws-1');
    await ws.terminal(accepted.runId);
    const wsMessages = ws.messages.filter((m) => m.type === 'events');

    // Act
    const token = await stack.tokenFor('sse-alice');
    const sse = await streamRun(stack, token, { agent: 'demo', sessionId: 'sse-s', input });

    // Assess: SSE frames are events messages, ids = seq, contiguous from 0 like the WebSocket's
    expect(sse.status).toBe(200);
    expect(sse.response.headers.get('cache-control')).toBe('no-cache');
    expect(sse.frames.every((f) => f.event === 'events')).toBe(true);
    expect(sse.frames.map((f) => Number(f.id))).toEqual(sse.frames.map((f) => f.data.seq));
    expect(sse.frames.map((f) => f.data.seq)).toEqual(sse.frames.map((_, i) => i));
    expect(wsMessages.map((m) => m.seq)).toEqual(wsMessages.map((_, i) => i));
    const sseEvents = sse.frames.flatMap((f) => f.data.events);
    const wsEvents = wsMessages.flatMap((m) => m.events);
    expect(shapeOf(sseEvents).map((s) => s.split(':')[0])).toEqual(
      shapeOf(wsEvents).map((s) => s.split(':')[0]),
    );
    expect(sseEvents.map((e) => e.type)).toContain('tool-call-result');
    expect(sseEvents.at(-1).type).toBe('run-finished');
    // Stored, as any HTTP run: its record is readable through the HTTP API
    const runId = sse.frames[0]!.data.runId;
    const record = await http(stack, 'sse-alice', 'GET', `/sessions/sse-s/runs/${runId}`);
    expect(record.body.status).toBe('completed');
  });

  it('refuses a bad token and another principal’s session before any event', async () => {
    // Prepare
    const owner = await stack.tokenFor('sse-owner');
    await streamRun(stack, owner, { agent: 'demo', sessionId: 'owned', input: 'hi' });

    // Act
    const forged = await streamRun(stack, 'not-a-jwt', { agent: 'demo', input: 'hi' });
    const none = await streamRun(stack, '', { agent: 'demo', input: 'hi' });
    const other = await stack.tokenFor('sse-mallory');
    const foreign = await streamRun(stack, other, {
      agent: 'demo',
      sessionId: 'owned',
      input: 'x',
    });

    // Assess: JSON errors with codes, no stream; the owner's session kept one turn
    expect(forged.status).toBe(401);
    expect(forged.json.code).toBe('unauthorized');
    expect(none.status).toBe(401);
    expect(foreign.status).toBe(404);
    expect(foreign.frames).toEqual([]);
    const session = await http(stack, 'sse-owner', 'GET', '/sessions/owned');
    expect(session.body.turns).toBe(1);
  });

  it('answers a repeated Idempotency-Key with the first reply, running nothing again', async () => {
    // Prepare
    const token = await stack.tokenFor('sse-bob');
    const body = { agent: 'demo', sessionId: 'idem', input: 'hello' };
    const headers = { 'idempotency-key': 'k-1' };
    const first = await streamRun(stack, token, body, headers);

    // Act
    const again = await streamRun(stack, token, body, headers);

    // Assess
    const finished = first.frames.flatMap((f) => f.data.events).at(-1);
    expect(again.frames.map((f) => f.event)).toEqual(['reply']);
    expect(again.frames[0]!.data).toEqual(finished.reply);
    const session = await http(stack, 'sse-bob', 'GET', '/sessions/idem');
    expect(session.body.turns).toBe(1);
  });

  it('keeps running and stores the run when the client disconnects mid-stream', async () => {
    // Prepare: a pausing turn (a booking waits for approval) read until its first frame
    const token = await stack.tokenFor('sse-carol');
    const controller = new AbortController();
    const response = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        agent: 'demo',
        sessionId: 'gone',
        input: 'Book a table for 2 at 8pm',
      }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = /"runId":"([^"]+)"/.exec(first)?.[1];

    // Act
    controller.abort();

    // Assess: the run ends and is stored (paused, waiting for the booking's approval)
    let status = '';
    for (let i = 0; i < 100 && status !== 'paused'; i++) {
      await pause(100);
      const record = await http(stack, 'sse-carol', 'GET', `/sessions/gone/runs/${runId}`);
      status = record.body.status;
    }
    expect(status).toBe('paused');
    const session = await http(stack, 'sse-carol', 'GET', '/sessions/gone');
    expect(session.body.paused.map((p: any) => p.runId)).toEqual([runId]);
  });

  it('refuses a request without Accept: text/event-stream', async () => {
    const token = await stack.tokenFor('sse-dan');
    const response = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'demo', input: 'hi' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).code).toBe('invalid-request');
  });
});
