import { HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoResponder } from '../../../examples/demo/offline-model.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';
import { http } from '../local/clients.js';

// `POST /ag-ui` resumes the pause the client names and honours Idempotency-Key as `POST /runs`
// does. A booking's effect is counted where it is real: the model request that carries the
// tool's output (one per execution of book_table).
let model: ScriptedModelServer;
let stack: LocalStack;

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT']) delete process.env[key];
  model = await startScriptedModelServer({ fallback: demoResponder });
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  stack = await startLocalStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
  delete process.env.OPENAI_BASE_URL;
  delete process.env.OPENAI_API_KEY;
});

/** How many times book_table really ran for the booking at `time`. */
function bookings(time: string): number {
  return model.requests.filter((request) => {
    const last = (request.body?.input as any[] | undefined)?.at(-1);
    return last?.type === 'function_call_output' && String(last.output).includes(`"${time}"`);
  }).length;
}

async function agentFor(principal: string, threadId: string, headers: Record<string, string> = {}) {
  const token = await stack.tokenFor(principal);
  const agent = new HttpAgent({
    url: `${stack.streamUrl}/ag-ui`,
    threadId,
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
  const run = async (params: Parameters<HttpAgent['runAgent']>[0] = {}) => {
    const events: any[] = [];
    await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
    return events;
  };
  const say = (content: string) => {
    agent.addMessage({ id: `m-${agent.messages.length}`, role: 'user', content });
    return run();
  };
  return { agent, run, say };
}

/** A raw `POST /ag-ui` (the client refuses to name any but its latest interrupts). */
async function postAgUi(principal: string, input: Record<string, unknown>, key?: string) {
  const response = await fetch(`${stack.streamUrl}/ag-ui`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify({
      runId: `client-${Math.random()}`,
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
      ...input,
    }),
  });
  const text = await response.text();
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
  return { status: response.status, events, text };
}

const interruptOf = (events: any[]) => {
  const end = events.at(-1);
  expect(end).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
  return { runId: end.runId as string, id: end.outcome.interrupts[0].id as string };
};

describe('POST /ag-ui resume: the pause the client names', () => {
  it('resumes the run that holds the interrupt; a stale interrupt never decides the current pause', async () => {
    // Prepare: a booking approved by its interrupt id, then another one waits.
    // (A new client per pause: one refuses to send while its thread has a pending interrupt.)
    const one = await agentFor('res-ann', 'res-t1');
    const first = interruptOf(await one.say('book a table for 2 at 8pm'));
    const { events: approved } = await postAgUi('res-ann', {
      threadId: 'res-t1',
      resume: [{ interruptId: first.id, status: 'resolved' }],
    });
    expect(approved[0].runId).toBe(first.runId);
    expect(approved.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const two = await agentFor('res-ann', 'res-t1');
    const second = interruptOf(await two.say('book a table for 3 at 9pm'));

    // Act: the first run's interrupt again (a stale tab), and the first run by name.
    const stale = await postAgUi('res-ann', {
      threadId: 'res-t1',
      resume: [{ interruptId: first.id, status: 'resolved' }],
    });
    const named = await postAgUi('res-ann', {
      threadId: 'res-t1',
      parentRunId: first.runId,
      resume: [{ interruptId: first.id, status: 'resolved' }],
    });

    // Assess: both refused before streaming; each booking ran as decided, the second waits.
    expect(stale.status).toBe(400);
    expect(JSON.parse(stale.text).message).toContain(`waits for interrupt "${first.id}"`);
    expect(named.status).toBeGreaterThanOrEqual(400);
    expect(bookings('8pm')).toBe(1);
    expect(bookings('9pm')).toBe(0);
    const session = await http(stack, 'res-ann', 'GET', '/sessions/res-t1');
    expect(session.body.paused.map((p: any) => p.runId)).toEqual([second.runId]);

    // Act: deny the waiting one, naming its run.
    const { events: denied } = await postAgUi('res-ann', {
      threadId: 'res-t1',
      parentRunId: second.runId,
      resume: [{ interruptId: second.id, status: 'cancelled' }],
    });

    // Assess
    expect(denied[0].runId).toBe(second.runId);
    expect(denied.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(bookings('9pm')).toBe(0);
    const after = await http(stack, 'res-ann', 'GET', '/sessions/res-t1');
    expect(after.body.paused).toEqual([]);
  });

  it('refuses an interrupt no paused run of the thread holds: 400, nothing runs', async () => {
    const { say } = await agentFor('res-ben', 'res-t2');
    const paused = interruptOf(await say('book a table for 4 at 10pm'));

    const refused = await postAgUi('res-ben', {
      threadId: 'res-t2',
      resume: [{ interruptId: 'call_not_here', status: 'resolved' }],
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'invalid-request' });
    expect(refused.text).toContain('call_not_here');
    expect(bookings('10pm')).toBe(0);
    const session = await http(stack, 'res-ben', 'GET', '/sessions/res-t2');
    expect(session.body.paused.map((p: any) => p.runId)).toEqual([paused.runId]);
  });

  it("refuses another principal's thread: 404, its pause untouched", async () => {
    const { say } = await agentFor('res-cat', 'res-t3');
    const paused = interruptOf(await say('book a table for 2 at 11pm'));
    const resume = [{ interruptId: paused.id, status: 'resolved' }];

    // Act: by interrupt, and by run id.
    const byInterrupt = await postAgUi('res-mallory', { threadId: 'res-t3', resume });
    const byRun = await postAgUi('res-mallory', {
      threadId: 'res-t3',
      parentRunId: paused.runId,
      resume,
    });

    // Assess
    expect([byInterrupt.status, byRun.status]).toEqual([404, 404]);
    expect(bookings('11pm')).toBe(0);
    const session = await http(stack, 'res-cat', 'GET', '/sessions/res-t3');
    expect(session.body.paused.map((p: any) => p.runId)).toEqual([paused.runId]);
  });
});

describe('POST /ag-ui with Idempotency-Key', () => {
  it('runs a repeated request once and streams the first answer again', async () => {
    // Act: the same key and message twice.
    const { say, agent } = await agentFor('idem-ann', 'idem-t1', { 'idempotency-key': 'k-1' });
    const first = await say('hello once');
    agent.messages.pop();
    const again = await say('hello once');

    // Assess: one turn; the repeat is a valid AG-UI run (the client checked it) of the same run.
    expect(again[0]).toMatchObject({ type: 'RUN_STARTED', runId: first[0].runId });
    expect(again.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const text = (events: any[]) =>
      events
        .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
        .map((e) => e.delta)
        .join('');
    expect(text(again)).toBe(text(first));
    const session = await http(stack, 'idem-ann', 'GET', '/sessions/idem-t1');
    expect(session.body.turns).toBe(1);
    const asked = model.requests.filter((r) => JSON.stringify(r.body).includes('hello once'));
    expect(asked).toHaveLength(1);
  });

  it('answers the same key with another message 409 request-conflict, and a bad key 400', async () => {
    const { say, agent } = await agentFor('idem-ben', 'idem-t2', { 'idempotency-key': 'k-2' });
    await say('first message');
    agent.messages.pop();
    await expect(say('another message')).rejects.toThrow(/409.*request-conflict/);

    const bad = await agentFor('idem-ben', 'idem-t2', { 'idempotency-key': 'not valid!' });
    await expect(bad.say('third message')).rejects.toThrow(/400.*invalid-request/);
    const session = await http(stack, 'idem-ben', 'GET', '/sessions/idem-t2');
    expect(session.body.turns).toBe(1);
  });

  it('resumes once for a repeated resume: one booking, the same answer twice', async () => {
    // Prepare
    const { say } = await agentFor('idem-cat', 'idem-t3');
    const paused = interruptOf(await say('book a table for 2 at 6pm'));
    const input = {
      threadId: 'idem-t3',
      parentRunId: paused.runId,
      resume: [{ interruptId: paused.id, status: 'resolved' }],
    };

    // Act: a client that retries a resume names the run (it is no longer paused then).
    const { events: first } = await postAgUi('idem-cat', input, 'resume-1');
    const { events: again } = await postAgUi('idem-cat', input, 'resume-1');

    // Assess
    expect(bookings('6pm')).toBe(1);
    for (const events of [first, again]) {
      expect(events[0].runId).toBe(paused.runId);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    }
    expect(again.at(-1).result).toEqual(first.at(-1).result);
  });
});
