import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFriendly, npmRun, type Ran, root } from './helpers/cli.js';

/**
 * `npm run invoke -- <sample>`: every file under events/ runs its function (chosen from the
 * event's shape) and prints what the function answered. Each row says which function and what
 * its answer must show for a fresh table and the offline model.
 */
const EXPECTED: Record<string, { fn: string; shows: RegExp }> = {
  'http/authorizer.json': { fn: 'authorizer', shows: /"principalId": "user-1"[\s\S]*"Allow"/ },
  'http/get-agents.json': { fn: 'http', shows: /"statusCode": 200[\s\S]*\\"name\\":\\"demo\\"/ },
  'http/get-health.json': { fn: 'http', shows: /"statusCode": 200[\s\S]*\\"status\\":\\"ok\\"/ },
  'http/get-run.json': { fn: 'http', shows: /"statusCode": 404[\s\S]*not-found/ },
  'http/get-session.json': { fn: 'http', shows: /"statusCode": 404[\s\S]*not-found/ },
  'http/post-decisions.json': { fn: 'http', shows: /"statusCode": 404[\s\S]*not-found/ },
  'http/post-runs-lambda-authorizer.json': {
    fn: 'http',
    shows: /"statusCode": 200[\s\S]*\\"status\\":\\"completed\\"/,
  },
  'http/post-runs.json': {
    fn: 'http',
    shows: /"statusCode": 200[\s\S]*\\"status\\":\\"completed\\"/,
  },
  'invoke/resume.json': { fn: 'invoke', shows: /"code": "not-found"/ },
  'invoke/run-approval.json': { fn: 'invoke', shows: /"status": "paused"[\s\S]*book_table/ },
  'invoke/run.json': { fn: 'invoke', shows: /"status": "completed"[\s\S]*Demo data: in Paris/ },
  'sqs/approvals-queue.json': { fn: 'approvals', shows: /"batchItemFailures": \[\]/ },
  'sqs/events-queue.json': { fn: 'fanout', shows: /"batchItemFailures": \[\]/ },
  'sqs/run-queue-resume.json': { fn: 'worker', shows: /"batchItemFailures": \[\]/ },
  'sqs/run-queue.json': { fn: 'worker', shows: /"batchItemFailures": \[\]/ },
  'websocket/authorizer.json': { fn: 'authorizer', shows: /"principalId": "user-1"[\s\S]*"Allow"/ },
  'websocket/connect.json': { fn: 'ws-connect', shows: /"statusCode": 200/ },
  'websocket/disconnect.json': { fn: 'ws-disconnect', shows: /"statusCode": 200/ },
  'websocket/message-resume.json': { fn: 'ws-message', shows: /"statusCode": 200/ },
  'websocket/message-run.json': { fn: 'ws-message', shows: /"statusCode": 200/ },
  'websocket/message-subscribe.json': { fn: 'ws-message', shows: /"statusCode": 200/ },
};

const samples = readdirSync(join(root, 'events'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort();

/** One `npm run invoke` per sample, shared by the tests that read its output. */
const invoked = new Map<string, Promise<Ran>>();
function invokeSample(sample: string): Promise<Ran> {
  let ran = invoked.get(sample);
  if (!ran) {
    ran = npmRun(['invoke', '--', `events/${sample}`], undefined, '', 120_000);
    invoked.set(sample, ran);
  }
  return ran;
}

describe.concurrent('npm run invoke -- <sample> (every sample event)', () => {
  it('has an expectation for every sample file and no other', () => {
    expect(samples).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(samples)(
    'events/%s runs its function',
    async (sample) => {
      // Act
      const ran = await invokeSample(sample);

      // Assess
      const expected = EXPECTED[sample] as { fn: string; shows: RegExp };
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      expect(ran.stderr).toContain(`${expected.fn} answered:`);
      expect(ran.stdout).toMatch(expected.shows);
      expectFriendly(ran);
    },
    150_000,
  );

  it('the ws-message sample runs the agent in a fresh table: its connection opened, the run queue and events followed', async () => {
    // Act
    const ran = await invokeSample('websocket/message-run.json');

    // Assess: what a client on the sample's connection would have received, in order.
    expect(ran.code, ran.stderr).toBe(0);
    const posted = [...ran.stderr.matchAll(/^posted to connection CONNECTION_ID: (.+)$/gm)].map(
      (m) => JSON.parse(m[1] as string),
    );
    expect(posted[0]).toMatchObject({ type: 'accepted', requestId: 'req-ws-run-1' });
    const events = posted.flatMap((m) => m.events ?? []);
    expect(events.map((e) => e.type)).toContain('tool-call-result');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { status: 'completed' } });
    const text = events
      .filter((e) => e.type === 'text-delta')
      .map((e) => e.delta)
      .join('');
    expect(text).toMatch(/^Demo data: in Paris it is -?\d+°C/);
    expect(ran.stderr).not.toContain('connection-not-found');
  }, 150_000);

  it('runs a function named first, on an event of the user’s own', async () => {
    // Act
    const ran = await npmRun(
      ['invoke', '--', 'invoke', 'events/invoke/run.json', '--set', 'input=book a table'],
      undefined,
    );

    // Assess: the offline demo asks for the missing details.
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('For how many people, and when?');
  }, 150_000);
});
