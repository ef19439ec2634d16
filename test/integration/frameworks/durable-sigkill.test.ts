import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childPool } from '../../helpers/child-pool.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const child = fileURLToPath(new URL('./durable/child.ts', import.meta.url));

const server = useScriptedModelServer({ freshCallIds: true });
// The attempt a case kills may run in the process the previous case's redelivery of the same
// framework finished in (a warm instance); the redelivered attempt always starts a new one.
const children = childPool(child);
/** A case's upper bound: two children of up to 40 s each on a busy machine (not a wait). */
const CASE_MS = 90_000;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-sigkill-'));
});
afterAll(async () => {
  await children.close();
  await rm(dir, { recursive: true, force: true });
});

interface Attempt {
  signal: NodeJS.Signals | null;
  last: any;
  stderr: string;
}

/** One attempt of the run in a child process (what a redelivered job is). */
async function attempt(
  framework: string,
  name: string,
  killAt?: string,
  env: Record<string, string> = {},
): Promise<Attempt> {
  const files = [join(dir, `${name}.journal.json`), join(dir, `${name}.effects`)];
  const args = [framework, server.url, ...files, 'run-1'];
  const childEnv = { KILL_AT: killAt ?? '', ...env };
  const options = { timeoutMs: 40_000, warm: Boolean(killAt), family: framework };
  const { signal, stdout, stderr } = await children.run(args, childEnv, options);
  return { signal, last: stdout ? JSON.parse(stdout) : undefined, stderr };
}

async function effects(name: string): Promise<string[]> {
  const text = await readFile(join(dir, `${name}.effects`), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };

describe.each(['openai', 'ai-sdk', 'langgraph', 'adk', 'strands', 'mastra'])(
  '%s runner: a worker killed with SIGKILL',
  (framework) => {
    it(
      'right after the write its outcome rode on: the redelivered attempt runs it no more and asks the model only for the next step',
      async () => {
        // Prepare: the outcome rides on the runner's last write, after the step that read it.
        const name = `${framework}-after`;
        server.push(payCall, { text: 'Paid Bob.' }, { text: 'Paid Bob.' });

        // Act
        const killed = await attempt(framework, name, 'after-tool');
        const again = await attempt(framework, name);

        // Assess
        expect(killed.signal, JSON.stringify(killed)).toBe('SIGKILL');
        expect(again.last, again.stderr).toMatchObject({
          type: 'run-finished',
          reply: { text: 'Paid Bob.' },
        });
        expect(await effects(name)).toHaveLength(1);
        // The tool step was replayed, not asked: the replay asked only for the step after it.
        expect(server.requests).toHaveLength(3);
        expect(JSON.stringify(server.requests[2]?.body)).toContain('sent 10 to bob');
      },
      CASE_MS,
    );

    it(
      'after the tool ran, before the write its outcome rides on: not run again, the model reads tool-outcome-unknown',
      async () => {
        // Prepare
        const name = `${framework}-before-fold`;
        server.push(payCall, { text: 'Paid Bob.' }, { text: 'Not sure.' });

        // Act
        const killed = await attempt(framework, name, 'before-fold');
        const again = await attempt(framework, name);

        // Assess
        expect(killed.signal, JSON.stringify(killed)).toBe('SIGKILL');
        expect(again.last, again.stderr).toMatchObject({
          type: 'run-finished',
          reply: { text: 'Not sure.' },
        });
        expect(await effects(name)).toHaveLength(1);
        // The recorded step (carried on the call's start) was replayed, not asked again.
        expect(server.requests).toHaveLength(3);
        expect(JSON.stringify(server.requests[2]?.body)).toContain('tool-outcome-unknown');
      },
      CASE_MS,
    );

    it(
      'during the tool: the call is not run again and the model reads tool-outcome-unknown',
      async () => {
        // Prepare
        const name = `${framework}-during`;
        server.push(payCall, { text: 'I could not confirm the payment.' });

        // Act
        const killed = await attempt(framework, name, 'during-tool');
        const again = await attempt(framework, name);

        // Assess
        expect(killed.signal, JSON.stringify(killed)).toBe('SIGKILL');
        expect(again.last, again.stderr).toMatchObject({ type: 'run-finished' });
        expect(await effects(name)).toHaveLength(1);
        expect(server.requests).toHaveLength(2);
        expect(JSON.stringify(server.requests[1]?.body)).toContain('tool-outcome-unknown');
      },
      CASE_MS,
    );

    for (const status of ['approved', 'denied'] as const) {
      it(
        `during a ToolSpec tool declared onUnknownOutcome 'pause': the next attempt pauses as <callId>:unknown-outcome; ${status}, it ${status === 'approved' ? 'runs once more under the same key' : 'never runs again'}`,
        async () => {
          // Prepare
          const name = `${framework}-spec-${status}`;
          server.push(payCall, { text: 'Done.' });

          // Act
          const killed = await attempt(framework, name, 'during-tool', { TOOL: 'spec' });
          const again = await attempt(framework, name, undefined, { TOOL: 'spec', DECIDE: status });

          // Assess
          expect(killed.signal, JSON.stringify(killed)).toBe('SIGKILL');
          expect(again.last?.paused, again.stderr).toMatchObject({
            type: 'run-paused',
            interruptions: [{ kind: 'tool-approval', toolName: 'pay' }],
          });
          const id: string = again.last.paused.interruptions[0].id;
          expect(id).toMatch(/^call_[A-Za-z0-9]{24}:unknown-outcome$/);
          expect(again.last.resumed).toMatchObject({
            type: 'run-finished',
            reply: { text: 'Done.' },
          });
          // Real executions of the tool: the killed one, and the approved rerun under its key.
          const key = `run-1:${id.replace(/:unknown-outcome$/, '')}`;
          expect(await effects(name)).toEqual(status === 'approved' ? [key, key] : [key]);
          // One request per model step: the recorded tool step was never asked again.
          expect(server.requests).toHaveLength(2);
          const final = JSON.stringify(server.requests[1]?.body);
          expect(final.includes('sent 10 to bob')).toBe(status === 'approved');
          expect(final).not.toContain('waits for approval');
        },
        CASE_MS,
      );
    }
  },
);
