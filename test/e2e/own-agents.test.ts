import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmRun,
  npmStart,
  openSocket,
  type StartedStack,
  untilRunEnds,
  userEnv,
} from './helpers/cli.js';

// `npm start -- --agents <module>`: the local stack serves your agents instead of the demo.
const FIXTURE = 'test/e2e/fixtures/parrot-agents.ts';
let stack: StartedStack;

beforeAll(async () => {
  stack = await npmStart(['--agents', FIXTURE]);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('npm start -- --agents <module> (your own agents)', () => {
  it('serves the module’s agents, not the demo', async () => {
    // Act
    const res = await fetch(`${stack.http}/agents`, {
      headers: { authorization: `Bearer ${stack.token}` },
    });

    // Assess
    expect(stack.printed()).toContain(`${FIXTURE}: parrot`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { agents: { name: string }[] };
    expect(body.agents.map((a) => a.name)).toEqual(['parrot']);
  });

  it('streams the agent’s reply over the WebSocket, its tool included', async () => {
    // Prepare
    const ws = await openSocket(stack.wsUrl, stack.token);
    const done = untilRunEnds(ws);

    // Act
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'own-1',
        agent: 'parrot',
        sessionId: 'own-session',
        input: 'reverse hello world',
      }),
    );
    const events = (await done).flatMap((m) => m.events ?? []);
    ws.close();

    // Assess: the fixture's tool ran, and the reply came as several text deltas.
    const result = events.find((e) => e.type === 'tool-call-result');
    expect(JSON.stringify(result)).toContain('dlrow olleh');
    const deltas = events.filter((e) => e.type === 'text-delta').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Reversed: dlrow olleh');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
  }, 60_000);

  it('refuses the demo agent, which this stack does not serve', async () => {
    // Prepare
    const ws = await openSocket(stack.wsUrl, stack.token);
    const done = untilRunEnds(ws);

    // Act
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'own-2',
        agent: 'demo',
        sessionId: 'own-session-2',
        input: 'weather in Paris?',
      }),
    );
    const last = (await done).at(-1);
    ws.close();

    // Assess
    expect(last).toMatchObject({ type: 'error', code: 'agent-not-found' });
  }, 60_000);
});

describe('npm run invoke with the same setting', () => {
  it('runs the invoke function with the module’s agent (flag)', async () => {
    // Act
    const ran = await npmRun([
      'invoke',
      '--',
      '--agents',
      FIXTURE,
      'events/invoke/run.json',
      '--set',
      'agent=parrot',
      '--set',
      'input=reverse abc',
    ]);

    // Assess
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      status: 'completed',
      agent: 'parrot',
      text: 'Reversed: cba',
    });
  }, 90_000);

  it('runs it with AGENT_KERNEL_AGENTS too, and refuses the demo agent there', async () => {
    // Act: the sample names `demo`, which the module does not define.
    const ran = await npmRun(
      ['invoke', '--', 'events/invoke/run.json'],
      userEnv({ AGENT_KERNEL_AGENTS: FIXTURE }),
    );

    // Assess
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ type: 'error', code: 'agent-not-found' });
  }, 90_000);
});
