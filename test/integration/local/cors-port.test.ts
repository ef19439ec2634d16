import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from './clients.js';

const stack = useLocalStack();
const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('local HTTP API as deployed: CORS', () => {
  it('answers a preflight of /runs itself, without a token, as API Gateway does', async () => {
    // Act
    const response = await fetch(`${stack.httpUrl}/runs`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });

    // Assess: infra/constructs/http-api.ts's corsPreflight, corsOrigins `*`
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,POST,DELETE,OPTIONS',
      'access-control-allow-headers': 'authorization,content-type,idempotency-key',
      'access-control-max-age': '3600',
    });
  });

  it('adds the allowed origin to answers, and still refuses a request without a token', async () => {
    // Act
    const agents = await fetch(`${stack.httpUrl}/agents`, {
      headers: { origin: 'http://localhost:5173', authorization: `Bearer ${stack.token}` },
    });
    const refused = await fetch(`${stack.httpUrl}/runs`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173' },
    });

    // Assess
    expect(agents.status).toBe(200);
    expect(agents.headers.get('access-control-allow-origin')).toBe('*');
    // Not a preflight (no Access-Control-Request-Method): a route like any other.
    expect(refused.status).toBe(401);
  });
});

describe('npm start on a port in use', () => {
  it('says so in one line with the way out, and no stack trace', async () => {
    // Prepare: someone else holds the port
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
      delete env[key];
    }

    // Act
    const child = spawn(process.execPath, ['--import', tsx, 'lib/local/main.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    await new Promise<void>((resolve) => holder.close(() => resolve()));

    // Assess: the SDK's Node-version notice may precede it on old Node; nothing else
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines.slice(-2)).toEqual([
      `error: Port ${port} is in use (another \`npm start\`?). (port-in-use)`,
      `hint: stop it, or pick another port: PORT=${port + 1} npm start`,
    ]);
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 60_000);
});
