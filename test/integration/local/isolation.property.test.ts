import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendApproval } from '../../../lib/local/approve.js';
import { localSqsClient } from '../../../lib/local/sqs.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { http, WsUser } from './clients.js';

// Random interleavings of requests by three principals over WebSocket, HTTP, direct invoke and
// the approvals queue, against one local stack, with sessions cleared (HTTP and WebSocket),
// expired (the clock moved past every TTL: `Date` is faked, timers are not) and claimed again
// by anyone. Invariant: no principal ever receives an event of, reads, decides or is answered
// with a run another principal made, nor reads a session another can read. Each principal's
// inputs carry its canary, which the offline model echoes, so anything that leaked would show.
const PRINCIPALS = ['p0', 'p1', 'p2'] as const;
const SESSIONS = ['a', 'b', 'c'] as const;
const DAY_MS = 24 * 3600_000;
/** Operations per CI run, at least (the property's runs times its commands). */
const RUNS = 20;
const COMMANDS = { minLength: 50, maxLength: 60 };
/**
 * The invoke function's deployed timeout (infra/functions.ts), not the local stack's 60 s: an
 * invoke resuming a run another attempt holds waits for that run's end, which on a loaded
 * machine (the worker's attempt cut by an expiry, retried after its backoff) can take longer.
 */
const INVOKE_TIMEOUT_MS = 5 * 60_000;
let stack: LocalStack;
const users = new Map<string, WsUser>();
/** Every client ever opened (an expiry replaces them): all are checked at the end. */
const everyone: WsUser[] = [];

async function connectAll(): Promise<void> {
  for (const principal of PRINCIPALS) {
    const user = await WsUser.connect(stack, principal);
    users.set(principal, user);
    everyone.push(user);
  }
}

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  // Before the stack: every store reads this clock, so an expiry is a move of it.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  stack = await startLocalStack({ timeoutsMs: { invoke: INVOKE_TIMEOUT_MS } });
  await connectAll();
}, 60_000);
afterAll(async () => {
  for (const user of everyone) user.close();
  await stack?.stop();
  vi.useRealTimers();
});

type Via =
  | 'ws-run'
  | 'ws-subscribe'
  | 'ws-resume'
  | 'ws-clear'
  | 'http-sync'
  | 'http-async'
  | 'http-read'
  | 'http-run-read'
  | 'http-decide'
  | 'http-clear'
  | 'clear-reclaim'
  | 'invoke-run'
  | 'invoke-resume'
  | 'approval'
  | 'expire';
type Command = { via: Via; who: number; session: number; run: number; pauseIt: boolean };

const weighted = (pairs: [Via, number][]) =>
  fc.constantFrom(...pairs.flatMap(([via, n]) => Array<Via>(n).fill(via)));
const command = fc.record({
  // Reads are cheap and are where a leak would show: they outweigh turns.
  via: weighted([
    ['ws-run', 3],
    ['ws-subscribe', 2],
    ['ws-resume', 2],
    ['ws-clear', 2],
    ['http-sync', 2],
    ['http-async', 2],
    ['http-read', 5],
    ['http-run-read', 8],
    ['http-decide', 2],
    ['http-clear', 2],
    ['clear-reclaim', 3],
    ['invoke-run', 1],
    ['invoke-resume', 1],
    ['approval', 1],
    ['expire', 1],
  ]),
  who: fc.nat({ max: 2 }),
  session: fc.nat({ max: SESSIONS.length - 1 }),
  run: fc.nat({ max: 1_000 }),
  pauseIt: fc.boolean(),
}) as fc.Arbitrary<Command>;

/** Who made each run (the principal whose request was answered with it), and its session. */
const runs = new Map<string, { principal: string; sessionId: string }>();
/** Successful reads, checked once every answer is in: [reader, what was read]. */
const reads: { principal: string; sessionId: string; body: any }[] = [];
/** Answers per principal, to search for others' canaries. */
const answers = new Map<string, unknown[]>(PRINCIPALS.map((p) => [p, []]));
const leaks: string[] = [];
let operations = 0;
let expiries = 0;
/** What each kind of operation was answered (`ok` or an error code), to show what was exercised. */
const outcomes = new Map<string, number>();

const canary = (principal: string) => `CANARY-${principal}-Q`;

/** A successful answer naming a run: its maker, who must be the one answered. */
function madeBy(principal: string, sessionId: string, answer: any): void {
  const runId = answer?.runId;
  // Any answer but an error (which has a code) names a run of the principal answered.
  if (typeof runId !== 'string' || answer?.code !== undefined || answer?.type === 'error') return;
  const known = runs.get(runId);
  if (!known) runs.set(runId, { principal, sessionId: answer.sessionId ?? sessionId });
  else if (known.principal !== principal) {
    leaks.push(`${principal} was answered with ${known.principal}'s run ${runId}`);
  }
}

async function execute(prefix: string, cmd: Command, n: number): Promise<void> {
  operations += 1;
  const principal = PRINCIPALS[cmd.who] as string;
  const user = users.get(principal) as WsUser;
  const named = `${prefix}-${SESSIONS[cmd.session]}`;
  const known = [...runs.entries()].filter(([, r]) => r.sessionId.startsWith(prefix));
  const [runId, target] = known[cmd.run % Math.max(known.length, 1)] ?? ['none', undefined];
  // Run routes name the run's own session: the attack is "my session now, your run before".
  const runSession = target?.sessionId ?? named;
  const sessionId = named;
  const input = cmd.pauseIt
    ? `book a table for 2 at 8pm ${canary(principal)}`
    : `hello ${canary(principal)}`;
  const decisions = [{ id: 'call_guess', status: 'approved' }];
  const requestId = `${prefix}-q${n}`;
  const keep = (answer: unknown, session = sessionId) => {
    const code = (answer as { code?: string } | undefined)?.code ?? 'ok';
    outcomes.set(`${cmd.via} ${code}`, (outcomes.get(`${cmd.via} ${code}`) ?? 0) + 1);
    (answers.get(principal) as unknown[]).push(answer);
    madeBy(principal, session, answer);
  };
  const read = async (path: string, session: string) => {
    const response = await http(stack, principal, 'GET', path);
    keep(response.body, session);
    if (response.status === 200) reads.push({ principal, sessionId: session, body: response.body });
  };
  switch (cmd.via) {
    case 'ws-run':
      user.send({ action: 'run', requestId, agent: 'demo', sessionId, input });
      return keep(await user.answer(requestId));
    case 'ws-subscribe':
      user.send({ action: 'subscribe', requestId, sessionId });
      return;
    case 'ws-resume':
      user.send({ action: 'resume', requestId, sessionId: runSession, runId, decisions });
      return keep(await user.answer(requestId), runSession);
    case 'ws-clear':
      user.send({ action: 'clear', requestId, sessionId });
      return keep(await user.answer(requestId));
    case 'http-sync':
    case 'http-async': {
      const mode = cmd.via === 'http-sync' ? 'sync' : 'async';
      const body = { agent: 'demo', sessionId, input, mode };
      return keep((await http(stack, principal, 'POST', '/runs', body)).body);
    }
    case 'http-read':
      return read(`/sessions/${sessionId}`, sessionId);
    case 'http-run-read':
      return read(`/sessions/${runSession}/runs/${runId}`, runSession);
    case 'http-decide': {
      const path = `/sessions/${runSession}/runs/${runId}/decisions`;
      return keep((await http(stack, principal, 'POST', path, { decisions })).body, runSession);
    }
    case 'http-clear':
      return keep((await http(stack, principal, 'DELETE', `/sessions/${sessionId}`)).body);
    case 'clear-reclaim': {
      // Whoever owns it clears it; then this principal claims it.
      for (const owner of PRINCIPALS) await http(stack, owner, 'DELETE', `/sessions/${sessionId}`);
      const body = { agent: 'demo', sessionId, input, mode: 'sync' };
      return keep((await http(stack, principal, 'POST', '/runs', body)).body);
    }
    case 'invoke-run':
      return keep(
        await stack.invoke({ action: 'run', agent: 'demo', sessionId, input, principal }),
      );
    case 'invoke-resume':
      return keep(
        await stack.invoke({
          action: 'resume',
          sessionId: runSession,
          runId,
          decisions,
          principal,
        }),
        runSession,
      );
    case 'approval':
      await sendApproval(stack.queues.approvals, {
        sessionId: runSession,
        runId,
        decisions,
        principal,
      });
      return;
    case 'expire': {
      // Past every TTL (sessions, records, paused runs, connections): everything expires.
      // New connections (the old ones' items expired); the old stay open, still checked.
      vi.setSystemTime(Date.now() + 8 * DAY_MS);
      expiries += 1;
      return connectAll();
    }
  }
}

/** At most one principal can read each session of an iteration at any one time. */
async function oneReader(prefix: string): Promise<void> {
  for (const name of SESSIONS) {
    const sessionId = `${prefix}-${name}`;
    const readers = [];
    for (const principal of PRINCIPALS) {
      const response = await http(stack, principal, 'GET', `/sessions/${sessionId}`);
      if (response.status === 200) readers.push(principal);
      else expect(response.body.code).toBe('not-found');
    }
    if (readers.length > 1) leaks.push(`${readers.join(', ')} all read ${sessionId}`);
  }
}

/** Every invariant over what was received, read and answered so far. */
function check(): void {
  for (const user of everyone) {
    for (const message of user.messages.filter((m) => m.type === 'events')) {
      const maker = runs.get(message.runId)?.principal;
      if (maker !== user.principal) {
        leaks.push(`${user.principal} got events of run ${message.runId} (made by ${maker})`);
      }
    }
  }
  for (const { principal, sessionId, body } of reads) {
    if (body.status && body.runId && runs.get(body.runId)?.principal !== principal) {
      const maker = runs.get(body.runId)?.principal;
      leaks.push(`${principal} read run ${body.runId} (${maker}'s) of ${sessionId}`);
    }
    for (const paused of body.paused ?? []) {
      if (runs.get(paused.runId)?.principal !== principal) {
        const maker = runs.get(paused.runId)?.principal;
        leaks.push(`${principal} saw paused run ${paused.runId} (${maker}'s) in ${sessionId}`);
      }
    }
  }
  for (const principal of PRINCIPALS) {
    const received = everyone.filter((u) => u.principal === principal).map((u) => u.messages);
    const text = JSON.stringify([received, answers.get(principal)]);
    for (const other of PRINCIPALS.filter((p) => p !== principal)) {
      if (text.includes(canary(other))) leaks.push(`${principal} saw ${other}'s words`);
    }
  }
}

/** Until the run, events and approvals queues are empty: whatever would be delivered was. */
async function quiet(budgetMs = 60_000): Promise<void> {
  const sqs = localSqsClient(stack.sqsEndpoint);
  const started = performance.now();
  try {
    while (performance.now() - started < budgetMs) {
      let pending = 0;
      for (const url of [stack.queues.run, stack.queues.events, stack.queues.approvals]) {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
          }),
        );
        pending +=
          Number(Attributes.ApproximateNumberOfMessages) +
          Number(Attributes.ApproximateNumberOfMessagesDelayed);
      }
      if (pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    sqs.destroy();
  }
}

describe('isolation between principals over time (property)', () => {
  it('no principal receives, reads, decides or is answered with what another made, across clears, expiries and reclaims', async () => {
    let iteration = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, COMMANDS), async (commands) => {
        iteration += 1;
        const prefix = `it${iteration}x${Date.now().toString(36)}`;
        // Interleaved: pairs of requests by different principals race each other. The clock
        // moves between requests, never during one (a function's deadline would pass mid-call).
        for (let i = 0; i < commands.length; i += 2) {
          const pair = commands.slice(i, i + 2).map((cmd, j) => ({ cmd, n: i + j }));
          const moves = pair.filter(({ cmd }) => cmd.via === 'expire');
          const rest = pair.filter(({ cmd }) => cmd.via !== 'expire');
          await Promise.all(rest.map(({ cmd, n }) => execute(prefix, cmd, n)));
          for (const { cmd, n } of moves) await execute(prefix, cmd, n);
        }
        await oneReader(prefix);
        check();
        expect(leaks).toEqual([]);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    // Whatever was still on its way when the last iteration ended, delivered and checked too.
    await quiet();
    check();
    expect(leaks).toEqual([]);
    expect(operations).toBeGreaterThanOrEqual(1_000);
    // The property exercised what it is about: clears, expiries, reclaims and reads that worked.
    const worked = (key: string) => outcomes.get(key) ?? 0;
    expect(expiries).toBeGreaterThan(0);
    for (const key of ['http-clear ok', 'ws-clear ok', 'clear-reclaim ok', 'http-run-read ok']) {
      expect(worked(key), key).toBeGreaterThan(0);
    }
    expect(reads.length).toBeGreaterThan(0);
  }, 900_000);
});
