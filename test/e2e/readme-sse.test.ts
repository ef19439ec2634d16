import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStart, root, type StartedStack } from './helpers/cli.js';

// The README's SSE command, copied from its Commands table as a reader copies it, with the
// `Stream URL` that `npm start` printed put where the README says `<stream-url>` and the printed
// TOKEN in the shell's environment.
const README = readFileSync(join(root, 'README.md'), 'utf8');
const COMMAND = /^\| `(curl -N -X POST [^`]+<stream-url>\/runs)` \|/m.exec(README)?.[1];
let stack: StartedStack;

beforeAll(async () => {
  stack = await npmStart();
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the README’s SSE command against npm start', () => {
  it('streams the run as SSE events ending in run-finished', async () => {
    // Prepare
    expect(COMMAND, 'the README has no curl … <stream-url>/runs row').toBeDefined();
    const streamUrl = /Stream URL\s+(\S+)/.exec(stack.printed())?.[1] as string;
    const command = (COMMAND as string).replace('<stream-url>', streamUrl);

    // Act
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('bash', ['-c', command], {
        env: { ...process.env, TOKEN: stack.token },
      });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.once('close', (code) => resolve({ code, stdout }));
    });

    // Assess: `id:` counts the messages from 0; the last event ends the run.
    expect(out.code).toBe(0);
    const events = out.stdout
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)))
      // Each `data:` is an `events` message, as the WebSocket sends them.
      .flatMap((message) => message.events ?? [message]);
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)?.type).toBe('run-finished');
    const ids = out.stdout.split('\n').filter((line) => line.startsWith('id: '));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(ids.map((_, i) => `id: ${i}`));
  }, 60_000);
});
