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
 * Runs the WebSocket chat with `input` piped to stdin (then EOF): no server named and no API key
 * in its env, so it starts the local stack in-process with the offline scripted model. The stack
 * takes a few seconds to start and every run goes through the SQS pollers: generous budget.
 */
function wsChat(input: string, timeoutMs = 90_000): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'AGENT_KERNEL_WS_URL',
    'AGENT_KERNEL_TOKEN',
    'TABLE_NAME',
    'DYNAMODB_ENDPOINT',
  ]) {
    delete env[key];
  }
  const child = spawn(process.execPath, ['--import', tsx, 'examples/demo/ws-chat.ts'], {
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

const APPROVAL = 'Approve book_table {"people":2,"time":"8pm"}? [y/N/edit]';

describe('WebSocket chat (npm run chat)', () => {
  it('streams replies from the local stack and resumes an approved tool call, then exits 0 at EOF', async () => {
    // Act
    const { code, stdout, stderr } = await wsChat(
      "what's the weather in Paris?\nbook a table for 2 at 8pm\ny\n",
    );

    // Assess
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^Started the local stack in this process \(offline/);
    expect(stdout).toContain("> what's the weather in Paris?");
    expect(stdout).toMatch(/ {2}↳ get_weather \{"city":"Paris"\} → \{.*"city":"Paris".*\}/);
    expect(stdout).toMatch(/^Demo data: in Paris it is -?\d+°C and [a-z ]+\.$/m);
    expect(stdout).toContain(`${APPROVAL} y\n`);
    expect(stdout).toMatch(
      / {2}↳ book_table \{"people":2,"time":"8pm"\} → \{"booked":true,"people":2,"time":"8pm","confirmation":"T-\d{4}"/,
    );
    expect(stdout).toMatch(/^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./m);
    expect(stdout).not.toContain('✗');
    // In order: the weather reply, then the question, then the booking.
    const weather = stdout.indexOf('Demo data: in Paris');
    const question = stdout.indexOf(APPROVAL);
    const booked = stdout.indexOf('↳ book_table');
    expect(weather).toBeLessThan(question);
    expect(question).toBeLessThan(booked);
    // The agent came from the stack, and every run shows its ids.
    expect(stdout.split('\n')[1]).toBe(
      'Agent: demo (GET /agents (AGENT_KERNEL_AGENT picks another)).',
    );
    const ids = [...stdout.matchAll(/^ {2}session (chat-[\w-]+) · run ([\w-]+)$/gm)];
    expect(ids).toHaveLength(3);
    const [, sessionId, runId] = ids[1] as RegExpMatchArray;
    // The paused run says how to decide it from another terminal (the local approvals queue).
    const approve = new RegExp(
      `^ {4}npm run approve -- http://127\\.0\\.0\\.1:\\d+/\\S+ ${sessionId} ${runId} \\S+ approved$`,
      'm',
    );
    expect(stdout).toMatch(approve);
    expect(stdout.search(approve)).toBeLessThan(question);
  }, 120_000);

  it('denies a tool call: it does not run, the agent says so, and the session goes on', async () => {
    // Act
    const { code, stdout, stderr } = await wsChat(
      'book a table for 2 at 8pm\nn\nweather in Oslo?\n/exit\nweather in Rome?\n',
    );

    // Assess
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    expect(stdout).toContain(`${APPROVAL} n\n`);
    expect(stdout).toContain(
      '  ↳ book_table {"people":2,"time":"8pm"} → Tool execution was not approved.',
    );
    expect(stdout).toMatch(/^I did not book the table: Tool execution was not approved\.$/m);
    expect(stdout).not.toContain('"booked":true');
    expect(stdout).toMatch(/^Demo data: in Oslo it is -?\d+°C and [a-z ]+\.$/m);
    expect(stdout).not.toContain('✗');
    // `/exit` quits before the last line.
    expect(stdout).not.toContain('Rome');
  }, 120_000);

  // The question is dropped at the run's first batch after the pause, not at its end: a line
  // typed while the approved run still streams is a chat message (it used to answer the question,
  // send a stale resume and leave the chat waiting for a line that had been consumed).
  it('drops its [y/N/edit] question when the run is approved from elsewhere, and goes on', async () => {
    // Prepare: the chat with stdin kept open, as a person at the terminal.
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGENT_KERNEL_WS_URL', 'TABLE_NAME']) {
      delete env[key];
    }
    const chat = spawn(process.execPath, ['--import', tsx, 'examples/demo/ws-chat.ts'], {
      cwd: root,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    const seen = (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(stdout);
          if (found) {
            chat.stdout.off('data', check);
            resolve(found);
          }
        };
        chat.stdout.on('data', check);
        chat.once('close', () => reject(new Error(`chat exited before ${pattern}:\n${stdout}`)));
        // A failing test's message, not a wait: the chat shows each step within seconds.
        setTimeout(() => reject(new Error(`no ${pattern} in:\n${stdout}`)), 50_000).unref();
        check();
      });
    chat.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => chat.once('close', resolve));

    try {
      // Act: a booking pauses; its printed approve command decides it from another process.
      chat.stdin.write('book a table for 2 at 8pm\n');
      const [, ...approveArgs] = (await seen(
        /^ {4}npm run approve -- (\S+) (\S+) (\S+) (\S+) approved$/m,
      )) as string[];
      const approve = spawn(
        'npm',
        ['run', '--silent', 'approve', '--', ...approveArgs, 'approved'],
        {
          cwd: root,
          env,
        },
      );
      const approved = await new Promise<number | null>((resolve) =>
        approve.once('close', resolve),
      );
      await seen(/^ {2}\(decided elsewhere: the run went on\)$/m);
      // Typed while the approved run may still stream: a chat message, not an answer to the
      // dropped question; the chat quits once the run has ended.
      chat.stdin.write('/exit\n');
      const code = await exited;

      // Assess
      expect(approved).toBe(0);
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(/^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./m);
      expect(stdout.indexOf('(decided elsewhere')).toBeLessThan(stdout.indexOf('Booked a table'));
      expect(stdout).toContain('> /exit');
      expect(stdout).not.toContain(`${APPROVAL} /exit`);
      expect(stdout).not.toContain('✗');
    } finally {
      chat.kill('SIGKILL');
    }
  }, 180_000);
});
