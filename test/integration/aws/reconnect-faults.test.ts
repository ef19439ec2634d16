import { describe, expect, it } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import { SeqOrder } from '../../../lib/transport/seq-order.js';
import { enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { crashPipeline } from './crash-pipeline.js';
import {
  connect,
  newStack,
  type Stack,
  send,
  settle,
  useDynamoProxy,
  useEndpoints,
} from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
const { pipeline, killAt, redeliverUntilDone } = crashPipeline(server, endpoints, proxy);

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON read by tests
type Json = any;

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/** Every stored message of the run, in seq order. */
async function stored(stack: Stack, sessionId: string, runId: string) {
  const page = await stack.deployed.events?.read(sessionId, runId, { after: -1, limit: 100 });
  return (page?.batches ?? []).map((b) => ({
    seq: b.seq,
    ...(b.from === undefined ? {} : { from: b.from }),
    events: b.events,
  }));
}

/** A message's first seq: a void marker covers `from`…`seq`. */
const firstOf = (m: { seq: number; from?: number }) => m.from ?? m.seq;

/** Messages cover seqs from `start` with no hole: each starts at or before the one after the last. */
function expectCovering(messages: { seq: number; from?: number }[], start: number) {
  let next = start;
  for (const m of messages) {
    expect(firstOf(m)).toBeLessThanOrEqual(next);
    expect(m.seq).toBeGreaterThanOrEqual(next);
    next = m.seq + 1;
  }
}

/** A connection's messages of the run, ordered and deduplicated as a client does. */
function ordered(messages: Json[], runId: string, afterSeq: number) {
  const order = new SeqOrder<Json>(afterSeq);
  return messages
    .filter((m) => m.type === 'events' && m.runId === runId)
    .flatMap((m) => order.accept(m));
}

/** Each (run, seq) a client got, however often, has one content (deep-equal: key order aside). */
function expectOneContentPerSeq(messages: Json[]) {
  const first = new Map<string, Json>();
  // A void marker too: it takes a seq no attempt sent, so (run, seq) keys it like any message.
  for (const m of messages.filter((x) => x.type === 'events')) {
    const key = `${m.runId}.${m.seq}`;
    if (!first.has(key)) first.set(key, m);
    expect(m).toEqual(first.get(key));
  }
}

describe('reconnect under faults', () => {
  it('a worker SIGKILLed mid-stream, a client reconnecting before the redelivery: contiguous seqs, one content each, one end', async () => {
    // Prepare: the requester's connection, and the worker in a child process
    const { stack, effectsFile } = await pipeline('rk', {
      EVENT_BATCH_MAX_DELAY_MS: '1',
      EVENTS_FLUSH_MS: '0',
    });
    await connect(stack, 'conn-rk-a', 'alice');
    // Through ws-message: the session is claimed (its owner fixed) before the job is queued.
    await send(stack, 'conn-rk-a', 'alice', {
      action: 'run',
      requestId: 'req-rk',
      agent: 'writer',
      sessionId: 's-job-rk',
      input: 'Please write job-rk',
    });
    const accepted = endpoints.connections.messages('conn-rk-a').find((m) => m.type === 'accepted');
    const job = { sessionId: 's-job-rk', runId: accepted?.runId as string };
    // Act: killed at its first store of events (written behind delivery, flushed at once here:
    // what it sent is not stored); the client drops and reconnects with its last seq
    await killAt(
      stack,
      effectsFile,
      (r) => r.operation === 'PutItem' && r.body.includes(`EVENTS#${job.runId}#`),
    );
    const before = endpoints.connections.messages('conn-rk-a').filter((m) => m.type === 'events');
    endpoints.connections.gone.add('conn-rk-a');
    await connect(stack, 'conn-rk-b', 'alice');
    const k = Math.max(...before.map((m) => m.seq));
    await send(stack, 'conn-rk-b', 'alice', {
      action: 'subscribe',
      sessionId: job.sessionId,
      runId: job.runId,
      afterSeq: k,
    });
    await redeliverUntilDone(stack, job);

    // Assess: seqs 0…k went out and were never stored
    expect(k).toBeGreaterThanOrEqual(0);
    expect(before.map((m) => m.seq)).toEqual(before.map((_, i) => i));
    const truth = await stored(stack, job.sessionId, job.runId);
    const after = endpoints.connections.messages('conn-rk-b');
    const rest = ordered(after, job.runId, k);
    // The redelivery closed them (and the rest of the dead attempt's block) with one void
    // marker at a seq past the whole block, stored and sent first, its range back to 0; the
    // client goes on from k+1 with no hole (the marker's range counting), once each.
    const [marker] = rest;
    expect(marker).toMatchObject({
      from: 0,
      events: [{ type: 'run-retrying', code: 'events-void' }],
    });
    expect(marker.seq).toBeGreaterThan(k);
    expect(before.map((m) => m.seq)).not.toContain(marker.seq);
    expectCovering(rest, k + 1);
    const all = [...before, ...rest];
    const ends = all.flatMap((m) => m.events).filter((e: Json) => TERMINAL.has(e.type));
    expect(ends).toEqual([expect.objectContaining({ type: 'run-finished' })]);
    // No seq with two contents anywhere, and storage agrees with the client from the marker on:
    // contiguous from 0, what the client got after k exactly what storage holds.
    expectOneContentPerSeq([...before, ...after]);
    expectCovering(truth, 0);
    expect(
      rest.map(({ seq, from, events }) => ({
        seq,
        ...(from === undefined ? {} : { from }),
        events,
      })),
    ).toEqual(truth);
    // What the client saw of 0…k, voided, is nowhere in storage as content.
    for (const m of before) {
      const holder = truth.find((t) => firstOf(t) <= m.seq && m.seq <= t.seq);
      expect(holder?.from).toBeDefined();
      expect(holder?.seq).not.toBe(m.seq);
    }
    expect((await stack.deployed.runs.get(job.sessionId, job.runId))?.terminalSeq).toBe(
      all.at(-1)?.seq,
    );
  }, 90_000);

  it('fan-out failing (API Gateway throttling) while a client reconnects: storage answers it, the retried fan-out adds nothing new', async () => {
    // Prepare: a run whose fan-out is refused (429: the whole message is retried)
    const stack = await newStack(server, endpoints, {
      DELIVERY_MODE: 'sqs-fanout',
      EVENT_BATCH_MAX_DELAY_MS: '1',
    });
    await connect(stack, 'conn-ff-a', 'alice');
    const job = writerJob('job-ff', 'conn-ff-a');
    await enqueue(stack.sqs, stack.queues.run, job);
    await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);
    endpoints.connections.failing.set('conn-ff-a', 429);
    await drain(stack.sqs, stack.queues.events, stack.handlers.fanout as never, { maxPolls: 1 });
    expect(endpoints.connections.refused.get('conn-ff-a')).toBeGreaterThan(0);

    // Act: during the failure, a new connection reconnects from the start; then fan-out recovers
    await connect(stack, 'conn-ff-b', 'alice');
    await send(stack, 'conn-ff-b', 'alice', {
      action: 'subscribe',
      sessionId: job.sessionId,
      runId: job.runId,
    });
    const replayed = [...endpoints.connections.messages('conn-ff-b')];
    endpoints.connections.failing.delete('conn-ff-a');
    await settle(stack);

    // Assess: the reconnect got the whole run from storage; the retry repeats seqs, same content
    const truth = await stored(stack, job.sessionId, job.runId);
    expect(replayed.map(({ seq, events }) => ({ seq, events }))).toEqual(truth);
    const b = endpoints.connections.messages('conn-ff-b');
    expectOneContentPerSeq([...b, ...endpoints.connections.messages('conn-ff-a')]);
    expect(ordered(b, job.runId, -1).map(({ seq, events }) => ({ seq, events }))).toEqual(truth);
    const a = endpoints.connections.messages('conn-ff-a');
    expect(ordered(a, job.runId, -1).map(({ seq, events }) => ({ seq, events }))).toEqual(truth);
    expect(truth.map((m) => m.seq)).toEqual(truth.map((_, i) => i));
    expect(truth.flatMap((m) => m.events).filter((e) => TERMINAL.has(e.type))).toHaveLength(1);
  }, 60_000);
});
