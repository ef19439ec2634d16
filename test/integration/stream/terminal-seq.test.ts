import { describe, expect, it } from 'vitest';
import { http, useLocalStack, useWsUsers } from '../local/clients.js';
import { isTerminal, type Json, readFrames } from './sse-frames.js';

/**
 * Every run's terminal seq is the seq its terminal event went out at, whatever front ran it:
 * a streamed (SSE) run's is its last frame's, not 0, so a resume continues after it and a poller
 * from the paused seq gets the resumed run's end.
 */
describe("a run's terminal seq (SSE, sync HTTP, WebSocket)", () => {
  const stack = useLocalStack();
  const user = useWsUsers(stack);

  async function sseRun(principal: string, body: unknown): Promise<Json[]> {
    const response = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.tokenFor(principal)}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return (await readFrames(response)).map((f) => f.data);
  }

  async function allEvents(principal: string, sessionId: string, runId: string, after = -1) {
    const messages: Json[] = [];
    for (let page = 0; page < 50; page++) {
      const query = after >= 0 ? `?after=${after}` : '';
      const path = `/sessions/${sessionId}/runs/${runId}/events${query}`;
      const { body } = await http(stack, principal, 'GET', path);
      if (!body.messages) throw new Error(JSON.stringify(body));
      messages.push(...body.messages);
      after = body.after;
      if (body.ended) return { messages, after };
    }
    throw new Error('never ended');
  }

  it('an SSE run paused at seq n and resumed by sync HTTP ends at n+1, seen by a poller after n', async () => {
    const paused = await sseRun('ts-alice', {
      agent: 'demo',
      sessionId: 'ts-1',
      input: 'book a table for 2 at 8pm',
    });
    const last = paused.at(-1);
    expect(last.events.at(-1).type).toBe('run-paused');
    const n = last.seq;
    expect(n).toBeGreaterThan(0);
    const { runId } = last;
    const [interruption] = last.events.at(-1).interruptions;

    const decided = await http(
      stack,
      'ts-alice',
      'POST',
      `/sessions/ts-1/runs/${runId}/decisions`,
      {
        decisions: [{ id: interruption.id, status: 'approved' }],
      },
    );
    expect(decided.body).toMatchObject({ status: 'completed' });

    // Stored messages 0..n, then the resumed run's end at n+1: no seq reused, one end after n.
    const rest = await allEvents('ts-alice', 'ts-1', runId, n);
    expect(rest.messages.map((m) => m.seq)).toEqual([n + 1]);
    expect(rest.messages[0].events.map((e: Json) => e.type)).toEqual(['run-finished']);
    const first = await allEvents('ts-alice', 'ts-1', runId);
    expect(first.messages).toEqual(paused);
  });

  it('an SSE run resumed over SSE continues after its paused seq, and a WebSocket run ends where it streamed', async () => {
    const paused = await sseRun('ts-bob', {
      agent: 'demo',
      sessionId: 'ts-2',
      input: 'book a table for 3 at 9pm',
    });
    const last = paused.at(-1);
    const { runId } = last;
    const [interruption] = last.events.at(-1).interruptions;
    // The resume streamed over the WebSocket (the worker): seqs after the SSE part's.
    const ws = await user('ts-bob');
    ws.send({
      action: 'resume',
      requestId: 'ts-2-r',
      sessionId: 'ts-2',
      runId,
      decisions: [{ id: interruption.id, status: 'approved' }],
    });
    await ws.answer('ts-2-r');
    const end = await ws.terminal(runId);
    const resumed = ws.messages.filter((m) => m.type === 'events' && m.runId === runId);
    expect(resumed.map((m) => m.seq)).toEqual(resumed.map((_, i) => last.seq + 1 + i));
    expect(end.seq).toBe(resumed.at(-1).seq);
    // Polling after the resumed end: caught up (its terminal seq is the record's).
    const done = await http(
      stack,
      'ts-bob',
      'GET',
      `/sessions/ts-2/runs/${runId}/events?after=${end.seq}`,
    );
    expect(done.body).toMatchObject({ messages: [], ended: true });
    const all = await allEvents('ts-bob', 'ts-2', runId, last.seq);
    expect(all.messages).toEqual(resumed);
    expect(all.messages.filter(isTerminal)).toHaveLength(1);
  });
});
