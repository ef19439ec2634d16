import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendApproval } from '../../../lib/local/approve.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { http, pause, WsUser } from './clients.js';

// Random interleavings of requests by three principals over WebSocket, HTTP, direct invoke and
// the approvals queue, against one local stack. Invariant: no principal ever receives an event
// of, or reads, a session it does not own. Each principal's inputs carry its canary, which the
// offline model echoes, so anything of another's that leaked would show.
const PRINCIPALS = ['p0', 'p1', 'p2'] as const;
const SESSIONS = ['a', 'b', 'c'] as const;
let stack: LocalStack;
const users = new Map<string, WsUser>();

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  stack = await startLocalStack();
  for (const principal of PRINCIPALS) users.set(principal, await WsUser.connect(stack, principal));
}, 60_000);
afterAll(async () => {
  for (const user of users.values()) user.close();
  await stack?.stop();
});

type Via = 'ws-run' | 'ws-subscribe' | 'ws-resume' | 'http-sync' | 'http-async' | 'http-read';
type Command = {
  via: Via | 'http-run-read' | 'http-decide' | 'invoke-run' | 'invoke-resume' | 'approval';
  who: number;
  session: number;
  run: number;
  pauseIt: boolean;
};

const command = fc.record({
  via: fc.constantFrom(
    'ws-run',
    'ws-subscribe',
    'ws-resume',
    'http-sync',
    'http-async',
    'http-read',
    'http-run-read',
    'http-decide',
    'invoke-run',
    'invoke-resume',
    'approval',
  ),
  who: fc.nat({ max: 2 }),
  session: fc.nat({ max: SESSIONS.length - 1 }),
  run: fc.nat({ max: 7 }),
  pauseIt: fc.boolean(),
}) as fc.Arbitrary<Command>;

/** What one iteration saw: answers per principal (bodies), and every run id anyone was given. */
interface Seen {
  prefix: string;
  answers: Map<string, unknown[]>;
  runIds: string[];
}

const canary = (principal: string) => `CANARY-${principal}-Q`;

async function execute(seen: Seen, cmd: Command, n: number): Promise<void> {
  const principal = PRINCIPALS[cmd.who] as string;
  const user = users.get(principal) as WsUser;
  const sessionId = `${seen.prefix}-${SESSIONS[cmd.session]}`;
  const runId = seen.runIds.length ? (seen.runIds[cmd.run % seen.runIds.length] as string) : 'none';
  const input = cmd.pauseIt
    ? `book a table for 2 at 8pm ${canary(principal)}`
    : `hello ${canary(principal)}`;
  const decisions = [{ id: 'call_guess', status: 'approved' }];
  const requestId = `${seen.prefix}-q${n}`;
  const keep = (answer: unknown) => {
    (seen.answers.get(principal) as unknown[]).push(answer);
    const id = (answer as { runId?: unknown } | undefined)?.runId;
    if (typeof id === 'string') seen.runIds.push(id);
  };
  switch (cmd.via) {
    case 'ws-run':
      user.send({ action: 'run', requestId, agent: 'demo', sessionId, input });
      return keep(await user.answer(requestId));
    case 'ws-subscribe':
      user.send({ action: 'subscribe', requestId, sessionId });
      return;
    case 'ws-resume':
      user.send({ action: 'resume', requestId, sessionId, runId, decisions });
      return keep(await user.answer(requestId));
    case 'http-sync':
    case 'http-async': {
      const mode = cmd.via === 'http-sync' ? 'sync' : 'async';
      const body = { agent: 'demo', sessionId, input, mode };
      return keep((await http(stack, principal, 'POST', '/runs', body)).body);
    }
    case 'http-read':
      return keep(await read(principal, `/sessions/${sessionId}`, sessionId));
    case 'http-run-read':
      return keep(await read(principal, `/sessions/${sessionId}/runs/${runId}`, sessionId));
    case 'http-decide': {
      const path = `/sessions/${sessionId}/runs/${runId}/decisions`;
      return keep((await http(stack, principal, 'POST', path, { decisions })).body);
    }
    case 'invoke-run':
      return keep(
        await stack.invoke({ action: 'run', agent: 'demo', sessionId, input, principal }),
      );
    case 'invoke-resume':
      return keep(await stack.invoke({ action: 'resume', sessionId, runId, decisions, principal }));
    case 'approval':
      await sendApproval(stack.queues.approvals, { sessionId, runId, decisions, principal });
      return;
  }
}

/** A successful read is recorded with the session it read, to check its owner afterwards. */
async function read(principal: string, path: string, sessionId: string) {
  const response = await http(stack, principal, 'GET', path);
  return response.status === 200 ? { read: sessionId, ...response.body } : response.body;
}

/** The owner of each session of this iteration, as the service sees it (at most one reader). */
async function owners(prefix: string): Promise<Map<string, string>> {
  const owned = new Map<string, string>();
  for (const name of SESSIONS) {
    const sessionId = `${prefix}-${name}`;
    const readers = [];
    for (const principal of PRINCIPALS) {
      const response = await http(stack, principal, 'GET', `/sessions/${sessionId}`);
      if (response.status === 200) readers.push(principal);
      else expect(response.body.code).toBe('not-found');
    }
    expect(readers.length).toBeLessThanOrEqual(1);
    if (readers[0]) owned.set(sessionId, readers[0]);
  }
  return owned;
}

function check(seen: Seen, owned: Map<string, string>): void {
  for (const principal of PRINCIPALS) {
    const user = users.get(principal) as WsUser;
    const mine = (sessionId: string) => owned.get(sessionId) === principal;
    const ours = user.messages.filter((m) => String(m.sessionId ?? '').startsWith(seen.prefix));
    for (const message of ours.filter((m) => m.type === 'events')) {
      expect(mine(message.sessionId), `${principal} got events of ${message.sessionId}`).toBe(true);
    }
    const answers = seen.answers.get(principal) as unknown[];
    for (const answer of answers as { read?: string; sessionId?: string; status?: string }[]) {
      if (answer.read) expect(mine(answer.read), `${principal} read ${answer.read}`).toBe(true);
      if (answer.sessionId && answer.status) expect(mine(answer.sessionId)).toBe(true);
    }
    const text = JSON.stringify([ours, answers]);
    for (const other of PRINCIPALS.filter((p) => p !== principal)) {
      expect(text, `${principal} saw ${other}'s words`).not.toContain(canary(other));
    }
  }
}

describe('isolation between principals (property)', () => {
  it('no principal receives an event of, or reads, a session it does not own', async () => {
    let iteration = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 9 }), async (commands) => {
        iteration += 1;
        const seen: Seen = {
          prefix: `it${iteration}x${Date.now().toString(36)}`,
          answers: new Map(PRINCIPALS.map((p) => [p, []])),
          runIds: [],
        };
        // Interleaved: pairs of requests by different principals race each other.
        for (let i = 0; i < commands.length; i += 2) {
          await Promise.all(commands.slice(i, i + 2).map((cmd, j) => execute(seen, cmd, i + j)));
        }
        await pause(2_500);
        check(seen, await owners(seen.prefix));
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 120_000);
});
