import { describe, expect, it } from 'vitest';
import { FrontDoor } from '../../../lib/app/front-door.js';
import type { Deployment } from '../../../lib/aws/wiring/deployment.js';
import type { DynamoRequest } from '../../helpers/faults/dynamo-proxy.js';
import { contextFor, recordOf } from '../../helpers/faults/sqs-records.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newStack, useDynamoProxy, useEndpoints } from './stack.js';

// A record left `running` because every write of its end failed (the turn is stored) is
// repaired from the session on the next read past RUN_STALE_AFTER_MS (15.5 min: no attempt
// outlives a Lambda's 15 minutes and the claim margin), and not before.

/** The bound docs/architecture.md states (lib/app/run-records.ts RUN_STALE_AFTER_MS). */
const RUN_STALE_AFTER_MS = 15 * 60_000 + 30_000;

const server = useScriptedModelServer();
const endpoints = useEndpoints();
const proxy = useDynamoProxy();

/** Every write that would end a run record: the ones after the turn's save. */
const isRecordEnd = (r: DynamoRequest) =>
  r.operation === 'PutItem' && r.body.includes('"RUN#') && r.body.includes('"S":"completed"');

/** A front door on the deployment whose clock reads `ahead` ms past now. */
function doorAt(deployed: Deployment, ahead: number): FrontDoor {
  const { runtime } = deployed;
  return new FrontDoor({
    sessions: runtime.sessions,
    pausedRuns: { get: (s, r) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined) },
    runs: deployed.runs,
    agents: { has: () => true, cards: () => [] },
    turns: runtime,
    now: () => Date.now() + ahead,
  });
}

describe('run records left running', () => {
  it('repairs a worker run whose every post-save record write failed, on the first read past the bound', async () => {
    // Prepare
    const stack = await newStack(
      server,
      endpoints,
      { DELIVERY_MODE: 'direct' },
      {
        dynamoEndpoint: proxy.url,
      },
    );
    server.push({ text: 'Stored, unrecorded.' });
    const job = {
      kind: 'run',
      requestId: 'req-rep',
      principal: 'alice',
      agent: 'payer',
      sessionId: 's-rep',
      runId: 'run-rep',
      input: 'Hi',
      enqueuedAt: Date.now(),
    };
    const message = { MessageId: 'm-rep', ReceiptHandle: 'rh', Body: JSON.stringify(job) };
    // The session is alice's, as the front door claims it before it queues the job.
    await doorAt(stack.deployed, 0).policy.claim('alice', 's-rep');
    proxy.setRule(isRecordEnd);
    await stack.handlers.worker(
      { Records: [recordOf(message, stack.queues.run, 1)] },
      contextFor(60_000),
    );
    proxy.setRule(undefined);
    const left = await stack.deployed.runs.get('s-rep', 'run-rep');

    // Act
    const early = await doorAt(stack.deployed, RUN_STALE_AFTER_MS - 60_000).readRun(
      'alice',
      's-rep',
      'run-rep',
    );
    const late = await doorAt(stack.deployed, RUN_STALE_AFTER_MS + 1_000).readRun(
      'alice',
      's-rep',
      'run-rep',
    );

    // Assess
    expect(proxy.log.some((r) => r.throttled)).toBe(true);
    expect(left).toMatchObject({ status: 'running' });
    expect(early).toMatchObject({ status: 'running' });
    expect(late).toMatchObject({
      status: 'completed',
      reply: { status: 'completed', text: 'Stored, unrecorded.' },
    });
    expect(await stack.deployed.runs.get('s-rep', 'run-rep')).toMatchObject({
      status: 'completed',
    });
  }, 90_000);

  it('repairs a sync run whose every post-save record write failed, and one whose turn never stored as timed-out', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, {}, { dynamoEndpoint: proxy.url });
    const now = doorAt(stack.deployed, 0);
    server.push({ text: 'Sync, unrecorded.' });
    proxy.setRule(isRecordEnd);
    const reply = await now.runNow({
      principal: 'alice',
      requestId: 'sync-rep',
      agent: 'payer',
      sessionId: 's-sync',
      input: 'Hi',
    });
    proxy.setRule(undefined);
    // A run whose attempt died before its turn was stored: only `running` was written.
    const dead = await stack.deployed.runs.get('s-sync', reply.runId);
    await stack.deployed.runs.transition({
      ...(dead as NonNullable<typeof dead>),
      runId: 'run-dead',
      status: 'running',
      reply: undefined,
      turnsBefore: 1,
    });

    // Act
    const late = doorAt(stack.deployed, RUN_STALE_AFTER_MS + 1_000);
    const repaired = await late.readRun('alice', 's-sync', reply.runId);
    const abandoned = await late.readRun('alice', 's-sync', 'run-dead');

    // Assess
    expect(dead).toMatchObject({ status: 'running' });
    expect(repaired).toMatchObject({ status: 'completed', reply: { text: 'Sync, unrecorded.' } });
    expect(abandoned).toMatchObject({ status: 'timed-out', error: { code: 'run-timeout' } });
  }, 60_000);
});
