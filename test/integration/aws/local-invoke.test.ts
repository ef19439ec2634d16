import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `npm run invoke -- <function> <event-file>`, offline: dynalite and the scripted model. */
async function invoke(fn: string, eventFile: string): Promise<any> {
  const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete env[key];
  }
  const { stdout } = await run(
    process.execPath,
    ['--import', tsx, 'lib/local/invoke.ts', fn, eventFile],
    {
      env,
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout);
}

describe('npm run invoke', () => {
  it('runs the invoke function on its sample event', async () => {
    expect(await invoke('invoke', 'events/invoke/run.json')).toMatchObject({
      status: 'completed',
      agent: 'demo',
      text: expect.stringContaining('Paris'),
    });
  });

  it('runs the http function on its sample event', async () => {
    const result = await invoke('http', 'events/http/get-agents.json');
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).agents[0]).toMatchObject({ name: 'demo' });
  });
});
