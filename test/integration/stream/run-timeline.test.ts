import { describe, expect, it } from 'vitest';
import { http, useLocalStack, useWsUsers } from '../local/clients.js';

// `GET /sessions/{id}/runs/{runId}/timeline` on the local stack (real API Gateway emulation,
// DynamoDB on dynalite, the worker and fan-out over SQS): what a run did, for its owner only.
const stack = useLocalStack();
const wsUser = useWsUsers(stack);

/** A booking over the WebSocket, paused, then approved over the same socket: run and resume. */
async function bookedRun(principal: string, sessionId: string) {
  const ws = await wsUser(principal);
  ws.send({
    action: 'run',
    requestId: 'q1',
    agent: 'demo',
    sessionId,
    input: 'book a table for 2 at 8pm',
  });
  const { runId } = await ws.answer('q1');
  const paused = await ws.terminal(runId);
  const pause = paused.events.find((e: { type: string }) => e.type === 'run-paused');
  const decisions = pause.interruptions.map((i: { id: string }) => ({
    id: i.id,
    status: 'approved',
  }));
  ws.send({ action: 'resume', requestId: 'q2', sessionId, runId, decisions });
  await ws.next(
    (m) =>
      m.type === 'events' &&
      m.runId === runId &&
      m.events.some((e: { type: string }) => e.type === 'run-finished'),
  );
  return runId as string;
}

describe('the run timeline route', () => {
  it('answers the owner with the model calls, the tool call, the pause and its decision', async () => {
    // Act
    const runId = await bookedRun('tl-alice', 'tl-own');
    const answer = await http(stack, 'tl-alice', 'GET', `/sessions/tl-own/runs/${runId}/timeline`);

    // Assess
    expect(answer.status).toBe(200);
    const { items, totals, pricing, run } = answer.body;
    expect(items.map((i: { kind: string }) => i.kind)).toEqual([
      'model',
      'tool',
      'pause',
      'decision',
      'model',
      'finish',
    ]);
    const tool = items[1];
    expect(tool).toMatchObject({ toolName: 'book_table', replayed: false, timing: 'journal' });
    expect(tool.arguments).toEqual({ people: 2, time: '8pm' });
    expect(tool.result).toMatchObject({ booked: true });
    expect(tool.journal).toMatchObject({ status: 'done' });
    expect(tool.durationMs).toBe(tool.journal.doneAt - tool.journal.startedAt);
    expect(items[3].decisions).toEqual([expect.objectContaining({ outcome: 'approved' })]);
    expect(totals.inputTokens).toBe(items[0].usage.inputTokens + items[4].usage.inputTokens);
    expect(totals.costUsd).toBeGreaterThan(0);
    expect(pricing).toMatchObject({ estimate: true, currency: 'USD', source: 'built-in' });
    expect(run.owner).toBeUndefined();
    for (const item of items) expect(item.startAt).toBeGreaterThanOrEqual(answer.body.startedAt);
  }, 60_000);

  it("another principal's run, a guessed id, no token: refused like any not-found, nothing leaks", async () => {
    // Prepare
    const runId = await bookedRun('tl-bob', 'tl-bobs');
    const guessed = await http(
      stack,
      'tl-bob',
      'GET',
      '/sessions/tl-bobs/runs/no-such-run/timeline',
    );

    // Act
    const attempts = [
      await http(stack, 'tl-mallory', 'GET', `/sessions/tl-bobs/runs/${runId}/timeline`),
      await http(stack, 'tl-mallory', 'GET', `/sessions/tl-nobody/runs/${runId}/timeline`),
      guessed,
    ];
    const bare = await fetch(`${stack.httpUrl}/sessions/tl-bobs/runs/${runId}/timeline`);
    const long = await http(
      stack,
      'tl-bob',
      'GET',
      `/sessions/tl-bobs/runs/${'x'.repeat(300)}/timeline`,
    );

    // Assess
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expect(attempt.body.code).toBe('not-found');
      expect(Object.keys(attempt.body).sort()).toEqual(Object.keys(guessed.body).sort());
      expect(JSON.stringify(attempt.body)).not.toMatch(/tl-bob\b|book_table|8pm/);
    }
    expect(bare.status).toBe(401);
    expect(long.status).toBe(400);
    expect(long.body.code).toBeTruthy();
  }, 60_000);
});
