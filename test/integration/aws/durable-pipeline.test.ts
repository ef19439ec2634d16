import { describe, type ExpectStatic, it } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import type { RecordedRequest } from '../../../lib/testing/index.js';
import { type DynamoRequest, isSessionSave } from '../../helpers/faults/dynamo-proxy.js';
import { clientView, effects, enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { startCrashWorld } from './crash-pipeline.js';
import { connect } from './stack.js';

// Fresh call ids in every response: a re-run model never repeats the ids the tool ran under.
const MODEL = { fallback: writerModel, freshCallIds: true };
/** Cases run at once, each in its own world; a hang limit, not a speed claim. */
const CASE_LIMIT_MS = 180_000;
type World = Awaited<ReturnType<typeof startCrashWorld>>;

/**
 * Runs `body` in this case's own world (model server, proxy, endpoints, stack), then closes it.
 * `expect` is the case's own: a concurrent case loses the global one's current test, and
 * expect.poll then throws "must be called inside a test".
 */
async function inWorld(
  expect: ExpectStatic,
  tag: string,
  env: Record<string, string>,
  body: (w: World) => Promise<void>,
) {
  const world = await startCrashWorld(expect, tag, env, MODEL);
  try {
    await body(world);
  } finally {
    await world.close();
  }
}

const isJournalQuery = (r: DynamoRequest) => r.operation === 'Query' && r.body.includes('JOURNAL#');
/**
 * The journal write that carries the tool call's outcome: the tool has run. Its outcome rides on
 * the run's next journal write, here the runner's last one (a `#R#` records item).
 */
const isCallFinish = (r: DynamoRequest) =>
  r.operation === 'PutItem' && r.body.includes('JOURNAL#') && r.body.includes('#R#');
/** A model request asking for the next step before any tool ran (the one that asks for the tool). */
const asksForTool = (r: RecordedRequest) =>
  !JSON.stringify(r.body?.input ?? '').includes('function_call_output');

describe.concurrent('durable pipeline: the replay flag', () => {
  it(
    'reads no journal on a first delivery of a job without tool calls',
    ({ expect }) =>
      inWorld(expect, 'plain', {}, async ({ stack, server, proxy }) => {
        // Prepare
        await connect(stack, 'conn-p', 'alice');
        const job = writerJob('job-p', 'conn-p');
        server.push({ text: 'Nothing to write.' });
        await enqueue(stack.sqs, stack.queues.run, job);

        // Act
        await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);

        // Assess
        expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
          status: 'completed',
        });
        expect(proxy.log.filter(isJournalQuery)).toHaveLength(0);
        expect(proxy.log.filter((r) => r.body.includes('JOURNAL#'))).toHaveLength(0);
      }),
    CASE_LIMIT_MS,
  );
});

describe.concurrent.each(['writer', 'spec-writer'])(
  'durable pipeline (%s): a worker killed',
  (agent) => {
    it(
      'right after the tool ran: the redelivery replays it, one effect, no model call for the recorded step',
      ({ expect }) =>
        inWorld(expect, `after-${agent}`, {}, async (w) => {
          const { stack, effectsFile, server, proxy, endpoints } = w;
          // Prepare
          await connect(stack, 'conn-a', 'alice');
          const job = { ...writerJob('job-a', 'conn-a'), agent };
          await enqueue(stack.sqs, stack.queues.run, job);

          // Act: killed when it saves the session (the tool ran, its outcome is in the journal).
          await w.killAt(isSessionSave);
          const afterCrash = {
            effects: effects(effectsFile),
            asks: server.requests.filter(asksForTool),
          };
          proxy.log.length = 0;
          await w.redeliverUntilDone(job);

          // Assess
          expect(afterCrash.effects).toEqual(['job-a']);
          expect(afterCrash.asks).toHaveLength(1);
          expect(effects(effectsFile)).toEqual(['job-a']);
          // The redelivery read the journal and asked the model only for the step after the tool.
          expect(proxy.log.filter(isJournalQuery).length).toBeGreaterThan(0);
          expect(server.requests.filter(asksForTool)).toHaveLength(1);
          expect((await stack.deployed.runtime.sessions.load(job.sessionId))?.data.turns).toBe(1);
          const view = clientView(endpoints.connections.messages('conn-a'));
          expect(view.terminals).toEqual([
            expect.objectContaining({
              type: 'run-finished',
              reply: expect.objectContaining({ text: 'Wrote job-a.' }),
            }),
          ]);
        }),
      CASE_LIMIT_MS,
    );

    it(
      'during the tool: the redelivery does not run it again, the model reads tool-outcome-unknown',
      ({ expect }) =>
        inWorld(expect, `during-${agent}`, {}, async (w) => {
          const { stack, effectsFile, server, endpoints } = w;
          // Prepare
          await connect(stack, 'conn-d', 'alice');
          const job = { ...writerJob('job-d', 'conn-d'), agent };
          await enqueue(stack.sqs, stack.queues.run, job);

          // Act: killed as it records the tool's outcome (the effect is done, the journal says started).
          await w.killAt(isCallFinish);
          const afterCrash = effects(effectsFile);
          await w.redeliverUntilDone(job);

          // Assess
          expect(afterCrash).toEqual(['job-d']);
          expect(effects(effectsFile)).toEqual(['job-d']);
          expect(server.requests.filter(asksForTool)).toHaveLength(1);
          const last = JSON.stringify(server.requests.at(-1)?.body?.input);
          expect(last).toContain('tool-outcome-unknown');
          expect((await stack.deployed.runtime.sessions.load(job.sessionId))?.data.turns).toBe(1);
          const view = clientView(endpoints.connections.messages('conn-d'));
          expect(view.terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
        }),
      CASE_LIMIT_MS,
    );
  },
);

describe.concurrent('durable pipeline: a resume job redelivered after its claim lapsed', () => {
  it(
    'takes the run over and replays the approved tool: one effect, one run-finished',
    ({ expect }) =>
      inWorld(expect, 'resume', { RESUME_CLAIM_SECONDS: '3' }, async (w) => {
        const { stack, effectsFile, server, endpoints } = w;
        // Prepare: the run pauses for approval of append_line.
        await connect(stack, 'conn-r', 'alice');
        const job = { ...writerJob('job-r', 'conn-r'), agent: 'approving-writer' };
        await enqueue(stack.sqs, stack.queues.run, job);
        await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);
        const paused = await stack.deployed.runtime.pausedRuns?.get(job.sessionId, job.runId);
        const callId = paused?.interruptions[0]?.id ?? 'none';
        const resume = {
          kind: 'resume' as const,
          requestId: 'req-resume-r',
          principal: 'alice',
          sessionId: job.sessionId,
          runId: job.runId,
          decisions: [{ id: callId, status: 'approved' }],
          connectionId: 'conn-r',
          enqueuedAt: Date.now(),
        };
        await enqueue(stack.sqs, stack.queues.run, resume);

        // Act: the resume's worker dies after the approved tool ran (at the session save); its claim
        // on the paused run lapses; the redelivered job takes the run over.
        await w.killAt(isSessionSave);
        const afterCrash = effects(effectsFile);
        await w.redeliverUntilDone(job);

        // Assess
        expect(afterCrash).toEqual(['job-r']);
        expect(effects(effectsFile)).toEqual(['job-r']);
        expect(server.requests.filter(asksForTool)).toHaveLength(1);
        const session = await stack.deployed.runtime.sessions.load(job.sessionId);
        expect(session?.data).toMatchObject({ turns: 1 });
        expect(session?.data.paused ?? []).toEqual([]);
        const view = clientView(endpoints.connections.messages('conn-r'));
        expect(view.terminals.map((e) => e.type)).toEqual(['run-paused', 'run-finished']);
      }),
    CASE_LIMIT_MS,
  );
});
