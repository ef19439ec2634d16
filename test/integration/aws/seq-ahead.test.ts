import { describe, expect, it } from 'vitest';
import { SEQ_BLOCK } from '../../../lib/app/jobs/run-log.js';
import { drain } from '../../../lib/local/sqs.js';
import type { RecordedRequest } from '../../../lib/testing/index.js';
import type { DynamoRequest } from '../../helpers/faults/dynamo-proxy.js';
import { clientView, effects, enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { crashPipeline } from './crash-pipeline.js';
import { connect, useDynamoProxy, useEndpoints } from './stack.js';

/**
 * The first seq block of a run job is reserved while the model thinks (RunLog.reserveAhead), so
 * the first send does not wait on the record write. These tests hold the model's first answer
 * and look at the record and the client meanwhile; then SIGKILL a worker in that state.
 */

/** The model's first answer of a turn waits until `open()`; the rest is the writer's script. */
function gatedModel() {
  let open: () => void = () => undefined;
  let asked: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const firstAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const model = async (request: RecordedRequest) => {
    const turn = writerModel(request);
    if ('toolCalls' in turn) {
      asked();
      await gate;
    }
    return turn;
  };
  return { model, open: () => open(), firstAsked };
}

let gated = gatedModel();
const server = useScriptedModelServer({ fallback: (r: RecordedRequest) => gated.model(r) });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
const { pipeline, killAt, redeliverUntilDone } = crashPipeline(server, endpoints, proxy);

const isRunningWrite = (r: DynamoRequest, runId: string) =>
  r.operation === 'PutItem' &&
  r.body.includes(`"RUN#${runId}"`) &&
  r.body.includes('"status":{"S":"running"}');

const eventsOf = (connectionId: string) =>
  endpoints.connections.messages(connectionId).filter((m) => m.type === 'events');

describe('worker: the seq block reserved before the model answers', () => {
  it('writes the record running with its first block while the model thinks, and no second write for the first send', async () => {
    // Prepare
    gated = gatedModel();
    const { stack } = await pipeline('ahead');
    await connect(stack, 'conn-ahead', 'alice');
    const job = writerJob('job-ahead', 'conn-ahead');
    await enqueue(stack.sqs, stack.queues.run, job);

    // Act: the worker runs in process; the model's first answer is held
    const done = drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);
    await gated.firstAsked;
    await expect
      .poll(async () => (await stack.deployed.runs.get(job.sessionId, job.runId))?.status, {
        timeout: 20_000,
      })
      .toBe('running');
    const meanwhile = {
      record: await stack.deployed.runs.get(job.sessionId, job.runId),
      sent: eventsOf('conn-ahead').length,
    };
    gated.open();
    await done;

    // Assess: reserved before anything was sent; one running write for the whole (short) run
    expect(meanwhile.sent).toBe(0);
    expect(meanwhile.record?.nextSeq).toBe(SEQ_BLOCK + 1);
    expect(proxy.log.filter((r) => isRunningWrite(r, job.runId))).toHaveLength(1);
    const view = clientView(eventsOf('conn-ahead'));
    expect(view.seqs).toEqual(view.seqs.map((_, i) => i));
    expect(view.terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      terminalSeq: view.seqs.at(-1),
    });
  }, 60_000);

  it('a worker SIGKILLed after the reservation, before its first send: the retry starts past the block, seqs unique and increasing, one end', async () => {
    // Prepare
    gated = gatedModel();
    const { stack, effectsFile } = await pipeline('ahead-kill');
    await connect(stack, 'conn-ak', 'alice');
    const job = writerJob('job-ak', 'conn-ak');
    await enqueue(stack.sqs, stack.queues.run, job);

    // Act: killed at its first store request after the running write (the model still held)
    let reserved = false;
    await killAt(stack, effectsFile, (r) => {
      if (reserved) return true;
      reserved = isRunningWrite(r, job.runId);
      return false;
    });
    const atKill = {
      record: await stack.deployed.runs.get(job.sessionId, job.runId),
      sent: eventsOf('conn-ak').length,
      effects: effects(effectsFile),
    };
    gated.open();
    await redeliverUntilDone(stack, job);

    // Assess
    expect(atKill).toMatchObject({
      record: { status: 'running', nextSeq: SEQ_BLOCK + 1 },
      sent: 0,
      effects: [],
    });
    const sent = eventsOf('conn-ak');
    const view = clientView(sent);
    // The retry first closes every seq the dead attempt may have used: one void marker at the
    // record's reserved seq (33, past the dead attempt's block: sent by no one) covering 0…33, so
    // a client waiting on seq 0 is not left waiting; then it goes on at 34, never going back.
    expect(sent[0]).toMatchObject({
      seq: SEQ_BLOCK + 1,
      from: 0,
      events: [expect.objectContaining({ type: 'run-retrying', code: 'events-void' })],
    });
    expect(view.seqs[0]).toBe(SEQ_BLOCK + 1);
    const after = view.seqs.slice(1);
    expect(after[0]).toBe(SEQ_BLOCK + 2);
    expect(after).toEqual(after.map((_, i) => SEQ_BLOCK + 2 + i));
    expect(view.terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
    expect(effects(effectsFile)).toEqual(['job-ak']);
    const session = await stack.deployed.runtime.sessions.load(job.sessionId);
    expect(session?.data.turns).toBe(1);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      terminalSeq: view.seqs.at(-1),
    });
  }, 90_000);
});
