import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import {
  afterSessionSave,
  type DynamoRequest,
  SDK_ATTEMPTS,
  throttleNext,
  throttleRandomly,
} from '../../helpers/faults/dynamo-proxy.js';
import { clientView, effects, enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { connect, newStack, useDynamoProxy, useEndpoints } from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel, freshCallIds: true });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'effects-'));
});

const POST_SAVE: [string, (r: DynamoRequest) => boolean][] = [
  ['the run record', (r) => r.operation === 'PutItem' && r.body.includes('"RUN#')],
  ['the lease release', (r) => r.operation === 'DeleteItem' && r.body.includes('"LEASE"')],
  [
    'the idempotency completion',
    (r) => r.operation === 'UpdateItem' && r.body.includes('IDEMPOTENCY#'),
  ],
  ['the last delivery', (r) => r.operation === 'Query' && r.body.includes('SUBS#')],
  // A range of stored events written behind delivery: retried before the next send (the terminal).
  ['the stored events', (r) => r.operation === 'PutItem' && r.body.includes('"EVENTS#')],
];

async function writerStack(receives = 5) {
  const effectsFile = join(dir, `effects-${Math.random().toString(36).slice(2)}.txt`);
  const stack = await newStack(
    server,
    endpoints,
    { DELIVERY_MODE: 'direct' },
    { dynamoEndpoint: proxy.url, effectsFile, maxReceiveCount: receives },
  );
  return { stack, effectsFile };
}

describe('worker: failures after the session is saved', () => {
  it.each(POST_SAVE)(
    'finishes the job once when %s is throttled through every SDK attempt',
    async (_name, match) => {
      // Prepare
      const { stack, effectsFile } = await writerStack();
      await connect(stack, 'conn-1', 'alice');
      const job = writerJob('job-1', 'conn-1');
      await enqueue(stack.sqs, stack.queues.run, job);
      proxy.setRule(afterSessionSave(throttleNext(match)));

      // Act
      await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);
      await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);

      // Assess
      expect(proxy.log.filter((r) => r.throttled)).toHaveLength(SDK_ATTEMPTS);
      expect(effects(effectsFile)).toEqual(['job-1']);
      expect(server.requests).toHaveLength(2);
      const session = await stack.deployed.runtime.sessions.load(job.sessionId);
      expect(session?.data.turns).toBe(1);
      const view = clientView(endpoints.connections.messages('conn-1'));
      expect(view.terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
      // Ordered and never reused; a message whose delivery gave up is sent again past every
      // reserved seq, so the run's seq may skip numbers (docs/protocol.md).
      expect(view.seqs[0]).toBe(0);
      expect(view.seqs).toEqual([...view.seqs].sort((a, b) => a - b));
      expect(new Set(view.seqs).size).toBe(view.seqs.length);
      expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
        status: 'completed',
      });
    },
  );

  it('stores every turn once, runs every tool once and ends every run once with 30 % of all DynamoDB requests throttled', async () => {
    // Prepare
    const { stack, effectsFile } = await writerStack(10);
    const jobs = Array.from({ length: 20 }, (_, i) => writerJob(`job-${i}`, `conn-${i}`));
    for (const job of jobs) {
      await connect(stack, job.connectionId as string, 'alice');
      await enqueue(stack.sqs, stack.queues.run, job);
    }
    proxy.setRule(throttleRandomly(0.3, 14));

    // Act
    // Four Lambda-like consumers side by side (each job is a FIFO group of its own).
    const consume = () =>
      drain(stack.sqs, stack.queues.run, stack.handlers.worker as never, { maxPolls: 400 });
    for (let round = 0; round < 5; round++) await Promise.all([1, 2, 3, 4].map(consume));
    proxy.setRule(undefined);

    // Assess
    expect(proxy.log.filter((r) => r.throttled).length).toBeGreaterThan(50);
    const lines = effects(effectsFile);
    for (const job of jobs) {
      const session = await stack.deployed.runtime.sessions.load(job.sessionId);
      expect(session?.data.turns, job.sessionId).toBe(1);
      const view = clientView(endpoints.connections.messages(job.connectionId as string));
      const record = await stack.deployed.runs.get(job.sessionId, job.runId);
      const why = `${job.runId}: ${JSON.stringify({ record, seqs: view.seqs, events: view.events.map((e) => e.type) })}`;
      expect(view.terminals, why).toHaveLength(1);
      expect(view.terminals[0]).toMatchObject({ type: 'run-finished' });
      // The journal: a retried attempt replays the tool call, never runs it again.
      expect(lines.filter((l) => l === job.input.split(' ')[2])).toHaveLength(1);
      expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
        status: 'completed',
      });
    }
    expect(lines).toHaveLength(jobs.length);
  }, 240_000);
});
