import { describe, expect, it } from 'vitest';
import { enqueue } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { connect, newStack, settle, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

describe.each(['sqs-fanout', 'direct'])('delivery (%s): one subscriber answering 500', (mode) => {
  it('gives every other subscriber each seq exactly once and drops the bad connection', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, {
      DELIVERY_MODE: mode,
      EVENT_BATCH_MAX_DELAY_MS: '1',
    });
    const sessionId = `s-${mode}`;
    for (const id of ['good-a', 'good-b', 'bad']) {
      await connect(stack, id, 'alice');
      await stack.deployed.connections.subscribe(id, sessionId);
    }
    // Mid-stream: the bad connection takes its first message, then answers 500.
    endpoints.connections.onPost = (id) => {
      if (id === 'bad') endpoints.connections.failing.set('bad', 500);
    };
    server.push({ text: 'A long answer, streamed in many small pieces to every subscriber.' });
    const job = {
      kind: 'run',
      requestId: `req-${mode}`,
      principal: 'alice',
      agent: 'payer',
      sessionId,
      runId: `run-${mode}`,
      input: 'Hi',
      connectionId: 'good-a',
      enqueuedAt: Date.now(),
    };
    await enqueue(stack.sqs, stack.queues.run, job);

    // Act
    await settle(stack);

    // Assess
    expect(endpoints.connections.refused.get('bad')).toBeGreaterThanOrEqual(3);
    expect(endpoints.connections.messages('bad')).toHaveLength(1);
    const counts: number[] = [];
    for (const id of ['good-a', 'good-b']) {
      const messages = endpoints.connections.messages(id);
      counts.push(messages.length);
      expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
      const terminals = messages.flatMap((m) => m.events).filter((e) => TERMINAL.has(e.type));
      expect(terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
    }
    // Mid-stream: the bad connection took one message and the others more (while it is retried,
    // the batcher may fold the rest of the run into one message, so two is enough).
    expect(counts[0]).toBeGreaterThan(1);
    expect(counts[1]).toBe(counts[0]);
    expect(await stack.deployed.connections.get('bad')).toBeUndefined();
    const subscribers = await stack.deployed.connections.subscribers(sessionId);
    expect(subscribers.map((s) => s.connectionId).sort()).toEqual(['good-a', 'good-b']);
    expect(server.requests).toHaveLength(1);
  });
});
