import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { sendApproval } from '../../../lib/local/approve.js';
import { useLocalStack } from './clients.js';
import { connect as connectTo, untilTerminal } from './ws-client.js';

const stack = useLocalStack();

const connect = (token?: string) => connectTo(stack.wsUrl, token);

describe('local stack (npm start)', () => {
  it('refuses a WebSocket without a valid token', async () => {
    // No token: 401 before the authorizer runs; a bad one: its Deny, 403 (as API Gateway).
    await expect(connect()).rejects.toThrow(/401/);
    await expect(connect('not-a-jwt')).rejects.toThrow(/403/);
    // A header is not the identity source: refused as the deployed API refuses it.
    const headerOnly = new WebSocket(stack.wsUrl, {
      headers: { authorization: `Bearer ${stack.token}` },
    });
    await expect(
      new Promise((resolve, reject) => {
        headerOnly.once('open', resolve);
        headerOnly.once('error', reject);
      }),
    ).rejects.toThrow(/401/);
  });

  it('streams a run over the WebSocket through the queue, worker and fan-out, in order', async () => {
    // Prepare
    const ws = await connect(stack.token);
    const done = untilTerminal(ws);

    // Act
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'r1',
        agent: 'demo',
        sessionId: 'local-1',
        input: 'weather in Paris?',
      }),
    );
    const messages = await done;
    ws.close();

    // Assess
    expect(messages[0]).toMatchObject({ type: 'accepted', requestId: 'r1', sessionId: 'local-1' });
    const batches = messages.filter((m) => m.type === 'events');
    expect(batches.map((b) => b.seq)).toEqual(batches.map((_, i) => i));
    const events = batches.flatMap((b) => b.events);
    const types = events.map((e: any) => e.type);
    expect(types[0]).toBe('run-started');
    expect(types.at(-1)).toBe('run-finished');
    const tools = types.filter((t: string) => t.startsWith('tool-call'));
    expect(tools[0]).toBe('tool-call-start');
    expect(tools.slice(-2)).toEqual(['tool-call-end', 'tool-call-result']);
    expect(events.at(-1).reply.text).toContain('Paris');
  });

  it('serves the HTTP API with the same token and refuses a bad one', async () => {
    // Act
    const session = await fetch(`${stack.httpUrl}/sessions/local-1`, {
      headers: { authorization: `Bearer ${stack.token}` },
    });
    const refused = await fetch(`${stack.httpUrl}/agents`, {
      headers: { authorization: 'Bearer nope' },
    });
    const other = await fetch(`${stack.httpUrl}/sessions/local-1`, {
      headers: { authorization: `Bearer ${await stack.tokenFor('someone-else')}` },
    });

    // Assess
    expect(session.status).toBe(200);
    expect(await session.json()).toMatchObject({ sessionId: 'local-1', turns: 1 });
    expect(refused.status).toBe(401);
    // As on AWS: no token is refused too, but for the open health check.
    expect((await fetch(`${stack.httpUrl}/agents`)).status).toBe(401);
    expect((await fetch(`${stack.httpUrl}/health`)).status).toBe(200);
    // Another principal hears what it would for a session that does not exist.
    expect(other.status).toBe(404);
  });

  it('finishes a paused run when a decision arrives on the approvals queue (npm run approve)', async () => {
    // Prepare
    const ws = await connect(stack.token);
    const paused = untilTerminal(ws);
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'r2',
        agent: 'demo',
        sessionId: 'local-2',
        input: 'book a table for 2 at 8pm',
      }),
    );
    const first = await paused;
    const pause = first.flatMap((m) => m.events ?? []).find((e: any) => e.type === 'run-paused');
    const finished = untilTerminal(ws);

    // Act
    await sendApproval(stack.queues.approvals, {
      sessionId: 'local-2',
      runId: pause.runId,
      principal: 'developer',
      decisions: [{ id: pause.interruptions[0].id, status: 'approved' }],
    });
    const second = await finished;
    ws.close();

    // Assess
    expect(pause.interruptions[0]).toMatchObject({ kind: 'tool-approval', toolName: 'book_table' });
    const events = second.flatMap((m) => m.events ?? []);
    expect(events.map((e: any) => e.type)).toContain('tool-call-result');
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: expect.stringContaining('Booked') },
    });
  });
});
