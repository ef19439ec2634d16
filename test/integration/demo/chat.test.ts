import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
// tsx 4 registers itself for both ESM and CJS through `node --import tsx`.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the chat with `input` piped to stdin (then EOF), offline: no API key in its env. The limit
 * only catches a hang: the test waits for the exit (20 s was exceeded at load 6 while the chat
 * was still working).
 */
const HANG_MS = 120_000;
function chat(input: string, timeoutMs = HANG_MS): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const child = spawn(process.execPath, ['--import', tsx, 'examples/demo/chat.ts'], {
    cwd: root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`chat did not exit in ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
      );
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('demo chat in-process (npm run chat:local)', { timeout: HANG_MS + 10_000 }, () => {
  it('answers piped questions offline with tool calls, then exits 0 at EOF', async () => {
    // Act
    const { code, stdout, stderr } = await chat("What's the weather in Paris?\nwhat time is it?\n");

    // Assess
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/offline scripted model/);
    expect(stdout).toContain("> What's the weather in Paris?");
    expect(stdout).toMatch(/ {2}↳ get_weather \{"city":"Paris"\} → \{.*"city":"Paris".*\}/);
    expect(stdout).toMatch(/^Demo data: in Paris it is -?\d+°C and [a-z ]+\.$/m);
    expect(stdout).toMatch(/ {2}↳ get_time \{"timeZone":"UTC"\} → \{.*"timeZone":"UTC".*\}/);
    expect(stdout).toMatch(/^In UTC it is now .+\.$/m);
    // The weather reply comes before the second question is shown.
    expect(stdout.indexOf('Demo data: in Paris')).toBeLessThan(stdout.indexOf('> what time'));
  });

  it('quits on /exit without answering what follows', async () => {
    // Act
    const { code, stdout } = await chat('/exit\nweather in Oslo?\n');

    // Assess
    expect(code).toBe(0);
    expect(stdout).not.toContain('get_weather');
  });

  it('asks before a booking and resumes the paused run with the answer (in-process store)', async () => {
    // Act
    const { code, stdout, stderr } = await chat(
      'book a table for 2 at 8pm\ny\nbook a table for 4 at 9pm\nn\n',
    );

    // Assess
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Approve book_table {"people":2,"time":"8pm"}? [y/N] y\n');
    expect(stdout).toMatch(
      / {2}↳ book_table \{"people":2,"time":"8pm"\} → \{"booked":true,"people":2,"time":"8pm"/,
    );
    expect(stdout).toMatch(/^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./m);
    expect(stdout).toContain('Approve book_table {"people":4,"time":"9pm"}? [y/N] n\n');
    expect(stdout).not.toContain('"people":4,"time":"9pm","confirmation"');
    expect(stdout).not.toContain('✗');
  });
});
