import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../lib/local/stack.js';
import { http, useLocalStack, useWsUsers } from '../local/clients.js';
import { type Frame, isTerminal, type Json, readFrames } from './sse-frames.js';

async function postRun(
  stack: LocalStack,
  principal: string,
  body: unknown,
  abort?: AbortController,
) {
  return fetch(`${stack.streamUrl}/runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      accept: 'text/event-stream',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
    ...(abort ? { signal: abort.signal } : {}),
  });
}

/** The SSE reconnect: Last-Event-ID as a header, or (clients that cannot set it) the query. */
async function reconnect(
  stack: LocalStack,
  principal: string,
  sessionId: string,
  runId: string,
  k: number | string | undefined,
  how: 'header' | 'query' = 'header',
) {
  const query = how === 'query' && k !== undefined ? `?lastEventId=${k}` : '';
  const response = await fetch(
    `${stack.streamUrl}/sessions/${sessionId}/runs/${runId}/events${query}`,
    {
      headers: {
        authorization: `Bearer ${await stack.tokenFor(principal)}`,
        accept: 'text/event-stream',
        ...(how === 'header' && k !== undefined ? { 'last-event-id': String(k) } : {}),
      },
    },
  );
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    return {
      status: response.status,
      body: (await response.json()) as Json,
      frames: [] as Frame[],
    };
  }
  return { status: response.status, body: undefined, frames: await readFrames(response) };
}

/** Every message of a run by HTTP polling, `limit` per page, from after `k`. */
async function poll(
  stack: LocalStack,
  principal: string,
  sessionId: string,
  runId: string,
  k: number,
  limit: number,
) {
  const messages: Json[] = [];
  let after = k;
  for (let pages = 0; pages < 100; pages++) {
    const page = await http(
      stack,
      principal,
      'GET',
      `/sessions/${sessionId}/runs/${runId}/events?after=${after}&limit=${limit}`,
    );
    expect(page.status).toBe(200);
    messages.push(...page.body.messages);
    after = page.body.after;
    if (page.body.ended) return messages;
  }
  throw new Error('never ended');
}

function seqs(messages: Json[]): number[] {
  return messages.map((m) => m.seq);
}

describe('resumable streams (stored events, reconnect from a seq)', () => {
  const stack = useLocalStack();
  const user = useWsUsers(stack);
  const input = 'What time is it in UTC?';

  it('an SSE client that drops at seq k and reconnects with k gets k+1 … terminal exactly once', async () => {
    // Prepare: the whole run once, to know its messages
    const full = await readFrames(
      await postRun(stack, 'rc-alice', { agent: 'demo', sessionId: 'rc-full', input }),
    );
    const messages = full.map((f) => f.data);
    expect(seqs(messages)).toEqual(messages.map((_, i) => i));
    expect(isTerminal(messages.at(-1))).toBe(true);
    const k = Math.floor(messages.length / 2);

    // Act: a second run dropped after frame k, then reconnected with Last-Event-ID k
    const abort = new AbortController();
    const dropped = await readFrames(
      await postRun(stack, 'rc-alice', { agent: 'demo', sessionId: 'rc-drop', input }, abort),
      (frame) => Number(frame.id) === k,
      abort,
    );
    const runId = dropped[0]?.data.runId;
    const rest = await reconnect(stack, 'rc-alice', 'rc-drop', runId, k);

    // Assess
    const got = [...dropped, ...rest.frames].map((f) => f.data);
    expect(seqs(got)).toEqual(messages.map((_, i) => i));
    expect(rest.frames.map((f) => Number(f.id))).toEqual(seqs(rest.frames.map((f) => f.data)));
    expect(got.filter(isTerminal)).toHaveLength(1);
    expect(isTerminal(got.at(-1))).toBe(true);
  });

  it('a finished run replays from storage from any seq: 50 random drop points, SSE and polling', async () => {
    // Prepare: one run over the WebSocket (the worker's path), one over SSE
    const ws = await user('rc-bob');
    ws.send({ action: 'run', requestId: 'rc-1', agent: 'demo', sessionId: 'rc-ws', input });
    const accepted = await ws.answer('rc-1');
    await ws.terminal(accepted.runId);
    const live = ws.messages.filter((m) => m.type === 'events' && m.runId === accepted.runId);
    const sse = (
      await readFrames(
        await postRun(stack, 'rc-bob', { agent: 'demo', sessionId: 'rc-sse', input }),
      )
    ).map((f) => f.data);
    const runs = [
      { sessionId: 'rc-ws', runId: accepted.runId, messages: live },
      { sessionId: 'rc-sse', runId: sse[0].runId, messages: sse },
    ];
    for (const run of runs) expect(seqs(run.messages)).toEqual(run.messages.map((_, i) => i));

    // Act + Assess: reconnect at a random k on a random transport
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1 }),
        fc.nat(),
        fc.constantFrom('header', 'query', 'poll'),
        fc.integer({ min: 1, max: 5 }),
        async (which, at, how, limit) => {
          const run = runs[which] as (typeof runs)[number];
          const k = at % run.messages.length;
          const got =
            how === 'poll'
              ? await poll(stack, 'rc-bob', run.sessionId, run.runId, k, limit)
              : (await reconnect(stack, 'rc-bob', run.sessionId, run.runId, k, how)).frames.map(
                  (f) => f.data,
                );
          expect(got).toEqual(run.messages.slice(k + 1));
        },
      ),
      { numRuns: 50 },
    );
    // From the start (no seq): the whole run.
    expect(
      (await reconnect(stack, 'rc-bob', 'rc-ws', accepted.runId, undefined)).frames.map(
        (f) => f.data,
      ),
    ).toEqual(live);
  }, 120_000);

  it("another principal's reconnect or a guessed run id is not-found, as any other not-found", async () => {
    const frames = await readFrames(
      await postRun(stack, 'rc-carol', { agent: 'demo', sessionId: 'rc-own', input }),
    );
    const runId = frames[0]?.data.runId;
    const guessed = await http(stack, 'rc-carol', 'GET', '/sessions/rc-own/runs/no-such-run');
    for (const attempt of [
      await reconnect(stack, 'rc-mallory', 'rc-own', runId, 0),
      await reconnect(stack, 'rc-carol', 'rc-own', 'no-such-run', 0),
      await reconnect(stack, 'rc-mallory', 'rc-nobody', runId, undefined, 'query'),
    ]) {
      expect(attempt.status).toBe(404);
      expect(Object.keys(attempt.body).sort()).toEqual(Object.keys(guessed.body).sort());
      expect(attempt.body.code).toBe('not-found');
    }
    const polled = await http(stack, 'rc-mallory', 'GET', `/sessions/rc-own/runs/${runId}/events`);
    expect(polled.status).toBe(404);
    expect(polled.body.code).toBe('not-found');
    expect(JSON.stringify(polled.body)).not.toContain('rc-carol');
  });

  it('bad seqs and page sizes get a clear code and message', async () => {
    const frames = await readFrames(
      await postRun(stack, 'rc-dan', { agent: 'demo', sessionId: 'rc-bad', input }),
    );
    const runId = frames[0]?.data.runId;
    const last = frames.length - 1;
    for (const after of ['abc', '-1', '1.5', '99999999999999999', String(last + 1)]) {
      const polled = await http(
        stack,
        'rc-dan',
        'GET',
        `/sessions/rc-bad/runs/${runId}/events?after=${after}`,
      );
      expect(polled.status, after).toBe(400);
      expect(polled.body.code).toBe('invalid-seq');
      expect(polled.body.message).toMatch(/after|seq/);
      const sse = await reconnect(stack, 'rc-dan', 'rc-bad', runId, after);
      expect(sse.status).toBe(400);
      expect(sse.body.code).toBe('invalid-seq');
    }
    for (const limit of ['0', '101', 'x']) {
      const polled = await http(
        stack,
        'rc-dan',
        'GET',
        `/sessions/rc-bad/runs/${runId}/events?limit=${limit}`,
      );
      expect(polled.status).toBe(400);
      expect(polled.body.code).toBe('invalid-limit');
    }
    // Caught up at the terminal seq: an empty, ended answer.
    const done = await http(
      stack,
      'rc-dan',
      'GET',
      `/sessions/rc-bad/runs/${runId}/events?after=${last}`,
    );
    expect(done.body).toMatchObject({ messages: [], ended: true });
  });
});
