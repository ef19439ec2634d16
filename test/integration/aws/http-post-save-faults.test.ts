import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import {
  type DynamoRequest,
  isSessionSave,
  SDK_ATTEMPTS,
  type ThrottleRule,
  throttleNext,
} from '../../helpers/faults/dynamo-proxy.js';
import { effects, writerModel } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from './setup.js';
import { useDynamoProxy } from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel, freshCallIds: true });
const proxy = useDynamoProxy();
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'http-faults-'));
});
beforeEach(() => {
  payments.length = 0;
});

const POST_SAVE: [string, (r: DynamoRequest) => boolean][] = [
  ['the run record', (r) => r.operation === 'PutItem' && r.body.includes('"RUN#')],
  ['the lease release', (r) => r.operation === 'DeleteItem' && r.body.includes('"LEASE"')],
  [
    'the idempotency completion',
    (r) => r.operation === 'UpdateItem' && r.body.includes('IDEMPOTENCY#'),
  ],
];

/** `rule` after the turn's save: the second session save (the first creates the session). */
function afterTurnSave(rule: ThrottleRule): ThrottleRule {
  let saves = 0;
  return (req) => {
    if (saves >= 2) return rule(req);
    if (isSessionSave(req)) saves++;
    return false;
  };
}

function post(tag: string) {
  const event = sampleEvent('http/post-runs.json');
  event.headers['idempotency-key'] = `key-${tag}`;
  event.body = JSON.stringify({ agent: 'writer', sessionId: `s-${tag}`, input: `Write ${tag}` });
  return event;
}

/** A sync run posted under `rule`, then posted again (same key) without faults. */
async function postTwice(tag: string, rule: ThrottleRule) {
  const effectsFile = join(dir, `${Math.random().toString(36).slice(2)}.txt`);
  const deployed = await deployment(server, {}, { dynamoEndpoint: proxy.url, effectsFile });
  const handler = createHttpHandler(async () => deployed);
  proxy.setRule(afterTurnSave(rule));
  const first = await handler(post(tag));
  proxy.setRule(undefined);
  const again = await handler(post(tag));
  const session = await deployed.runtime.sessions.load(`s-${tag}`);
  return { first, again, effects: effects(effectsFile), turns: session?.data.turns };
}

describe('HTTP sync: failures after the session is saved', () => {
  it.each(POST_SAVE)(
    'answers the stored reply when %s is throttled through every SDK attempt, and a retry runs nothing',
    async (_name, match) => {
      // Act
      const { first, again, ...stored } = await postTwice('job-h', throttleNext(match));

      // Assess
      expect(proxy.log.filter((r) => r.throttled)).toHaveLength(SDK_ATTEMPTS);
      expect(first.statusCode, String(first.body)).toBe(200);
      expect(JSON.parse(String(first.body))).toMatchObject({
        status: 'completed',
        text: 'Wrote job-h.',
      });
      expect(again.statusCode).toBe(200);
      expect(JSON.parse(String(again.body))).toMatchObject({ status: 'completed' });
      expect(stored).toEqual({ effects: ['job-h'], turns: 1 });
    },
  );

  it('answers 200 with the stored reply when the lease release keeps failing past every retry', async () => {
    // Prepare: every release attempt, past the SDK's retries and the lock's own.
    const [, isLeaseRelease] = POST_SAVE[1] as [string, (r: DynamoRequest) => boolean];

    // Act
    const { first, again, ...stored } = await postTwice('job-lease', isLeaseRelease);

    // Assess
    expect(proxy.log.filter((r) => r.throttled).length).toBeGreaterThan(SDK_ATTEMPTS);
    expect(first.statusCode, String(first.body)).toBe(200);
    expect(JSON.parse(String(first.body))).toMatchObject({
      status: 'completed',
      text: 'Wrote job-lease.',
    });
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(String(again.body))).toMatchObject({ text: 'Wrote job-lease.' });
    expect(stored).toEqual({ effects: ['job-lease'], turns: 1 });
    // The session's creation and the turn's one save: the retry stored nothing.
    const saves = proxy.log.filter((r) => isSessionSave(r) && r.body.includes('s-job-lease'));
    expect(saves).toHaveLength(2);
  }, 30_000);
});

describe('HTTP decisions: a resume that timed out after the approved tool ran', () => {
  it('is retried with the same decisions: the tool does not run again and the run completes', async () => {
    // Prepare
    const deployed = await deployment(server, { SYNC_RUN_TIMEOUT_MS: '1500' });
    const handler = createHttpHandler(async () => deployed);
    const pay = { name: 'send_payment', arguments: { to: 'bob', amount: 10 } };
    server.push(
      { toolCalls: [pay] },
      // The answer after the payment outlives the sync timeout; the retry's answer does not.
      { text: 'Paid Bob.', delayMs: 3_000 },
      { text: 'Paid Bob.' },
    );
    const run = sampleEvent('http/post-runs.json');
    run.body = JSON.stringify({ agent: 'payer', sessionId: 'http-session-1', input: 'Pay Bob 10' });
    const paused = JSON.parse(String((await handler(run)).body));
    const callId = paused.interruptions[0].id;
    const decide = () => {
      const event = sampleEvent('http/post-decisions.json', {
        RUN_ID: paused.runId,
        CALL_ID: callId,
      });
      event.headers['idempotency-key'] = 'decide-1';
      return handler(event);
    };

    // Act
    const timedOut = await decide();
    const paidOnce = payments.length;
    const runEvent = sampleEvent('http/get-run.json', { RUN_ID: paused.runId });
    const record = JSON.parse(String((await handler(runEvent)).body));
    const retried = await decide();

    // Assess
    expect(paused.status).toBe('paused');
    expect(timedOut.statusCode).not.toBe(200);
    // The answer says what is known: the tool may have run (it did), and where to look.
    const { code, message } = JSON.parse(String(timedOut.body));
    expect(code).toBe('run-timeout');
    expect(message).not.toMatch(/nothing was stored/);
    expect(message).toMatch(/Tool calls it made may have run/);
    expect(message).toContain(`GET /sessions/http-session-1/runs/${paused.runId}`);
    // Still paused (the same decisions may be sent again), with the attempt's error.
    expect(record).toMatchObject({ status: 'paused', error: { code: 'run-timeout' } });
    expect(paidOnce).toBe(1);
    expect(retried.statusCode, String(retried.body)).toBe(200);
    expect(JSON.parse(String(retried.body))).toMatchObject({
      status: 'completed',
      text: 'Paid Bob.',
    });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
    // The recorded step (the one that asked for the payment) was not asked again.
    expect(
      server.requests.filter((r) => !JSON.stringify(r.body.input).includes('function_call_output')),
    ).toHaveLength(1);
    const session = await deployed.runtime.sessions.load('http-session-1');
    expect(session?.data).toMatchObject({ turns: 1 });
    expect(session?.data.paused ?? []).toEqual([]);
  }, 30_000);
});
