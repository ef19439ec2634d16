import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmRun,
  npmStart,
  openSocket,
  type StartedStack,
  stopGroup,
  untilRunEnds,
  userEnv,
} from './helpers/cli.js';

// The README's commands as a user runs them: `npm start` in one process, then `npm run chat`,
// `npm run approve` and plain HTTP / WebSocket clients against what it printed.
let stack: StartedStack;
let startExit: Promise<unknown>;

beforeAll(async () => {
  stack = await npmStart();
  startExit = new Promise((resolve) => {
    if (stack.child.exitCode !== null) resolve(stack.child.exitCode);
    else stack.child.once('close', resolve);
  });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('npm start (the README command), used as a user would', () => {
  it('prints its URLs and a development token, and the HTTP API answers with it', async () => {
    // Assess
    expect(stack.printed()).toContain('Agent Kernel local stack (offline: scripted model server)');
    expect(stack.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const agents = await fetch(`${stack.http}/agents`, {
      headers: { authorization: `Bearer ${stack.token}` },
    });
    expect(agents.status).toBe(200);
    expect(await agents.json()).toMatchObject({
      agents: [expect.objectContaining({ name: 'demo' })],
    });
    expect((await fetch(`${stack.http}/agents`)).status).toBe(401);
    expect((await fetch(`${stack.http}/health`)).status).toBe(200);
    // The approver token it prints opens the approvals inbox (every session's paused runs).
    const approver = /^APPROVER_TOKEN=(\S+)$/m.exec(stack.printed())?.[1];
    const inbox = await fetch(`${stack.http}/approvals`, {
      headers: { authorization: `Bearer ${approver}` },
    });
    expect(inbox.status).toBe(200);
    expect(await inbox.json()).toMatchObject({ approvals: [], approver: true });
    expect(stack.printed()).toContain('#/approvals, with the token of back-office');
  });

  it('npm run chat, with the variables it prints, streams a reply and resumes an approved booking', async () => {
    // Prepare: the chat line `npm start` prints, as a shell would expand it.
    const line = /^ +(AGENT_KERNEL_WS_URL=.+) npm run chat$/m.exec(stack.printed())?.[1];
    expect(line, stack.printed()).toBeDefined();
    const vars = Object.fromEntries(
      (line as string)
        .replaceAll('$TOKEN', stack.token)
        .split(' ')
        .map((pair) => pair.split('=', 2) as [string, string]),
    );

    // Act
    const chat = await npmRun(
      ['chat'],
      userEnv(vars),
      'weather in Paris?\nbook a table for 2 at 8pm\ny\n/exit\n',
    );

    // Assess
    expect(chat.code, `${chat.stdout}\n${chat.stderr}`).toBe(0);
    // The approve line it shows names the stack's real queue, never a placeholder.
    expect(chat.stdout).toContain(`    npm run approve -- ${stack.approvalsQueue} chat-`);
    expect(chat.stdout).not.toMatch(/<[a-z-]+-url>/);
    expect(chat.stdout).toMatch(/^Demo data: in Paris it is -?\d+°C and [a-z ]+\.$/m);
    expect(chat.stdout).toMatch(/^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./m);
  }, 120_000);

  it('npm run approve finishes a run paused on the WebSocket, through the approvals queue', async () => {
    // Prepare: a run that pauses for the booking's approval.
    const ws = await openSocket(stack.wsUrl, stack.token);
    const paused = untilRunEnds(ws);
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'e2e-1',
        agent: 'demo',
        sessionId: 'e2e-session',
        input: 'book a table for 4 at 7pm',
      }),
    );
    const pause = (await paused).flatMap((m) => m.events ?? []).at(-1);
    expect(pause).toMatchObject({ type: 'run-paused' });
    const callId = pause.interruptions[0].id as string;
    const finished = untilRunEnds(ws);

    // Act: the one-line command the README and `npm start` print.
    const approve = await npmRun(
      ['approve', '--', stack.approvalsQueue, 'e2e-session', pause.runId, callId, 'approved'],
      userEnv(),
    );

    // Assess
    expect(approve.code, `${approve.stdout}\n${approve.stderr}`).toBe(0);
    const end = (await finished).flatMap((m) => m.events ?? []).at(-1);
    expect(end).toMatchObject({ type: 'run-finished', runId: pause.runId });
    expect(end.reply.text).toMatch(/^Booked a table for 4 at 7pm/);
    ws.close();
  }, 120_000);

  it('stops cleanly on SIGTERM (Ctrl+C)', async () => {
    // Act
    stopGroup(stack.child, 'SIGTERM');
    const code = await Promise.race([
      startExit,
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 20_000)),
    ]);

    // Assess: npm reports the signal or the stack's own exit 0, never a hang.
    expect(code).not.toBe('timeout');
  }, 30_000);
});
