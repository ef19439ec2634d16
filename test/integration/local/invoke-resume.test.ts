import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { newTable } from '../stores/dynamo.js';

const run = promisify(execFile);

/**
 * `npm run invoke -- invoke <event-file> [--set …]` as a user runs it, against a dynalite table
 * that outlives each invocation; the model is the demo agent's offline scripted one.
 */
async function invoke(env: Record<string, string>, ...args: string[]): Promise<any> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, POWERTOOLS_LOG_LEVEL: 'ERROR' };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete childEnv[key];
  const { stdout } = await run('npx', ['tsx', 'lib/local/invoke.ts', 'invoke', ...args], {
    env: childEnv,
    timeout: 90_000,
  });
  return JSON.parse(stdout);
}

describe('npm run invoke: run, then resume in another invocation', () => {
  it('pauses for approval, then finishes when resumed with the paused run’s ids', async () => {
    // Prepare
    const endpoint = inject('dynaliteEndpoint');
    const { tableName } = await newTable(endpoint);
    const env = { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint };

    // Act
    const paused = await invoke(env, 'events/invoke/run-approval.json');
    const call = paused.interruptions?.[0];
    const done = await invoke(
      env,
      'events/invoke/resume.json',
      '--set',
      `runId=${paused.runId}`,
      '--set',
      `decisions.0.id=${call?.id}`,
    );

    // Assess
    expect(paused).toMatchObject({ status: 'paused', sessionId: 'invoke-session-1' });
    expect(call).toMatchObject({ kind: 'tool-approval', toolName: 'book_table' });
    expect(done).toMatchObject({
      status: 'completed',
      sessionId: 'invoke-session-1',
      runId: paused.runId,
      text: expect.stringContaining('Booked a table for 2 at 8pm'),
    });
  }, 180_000);

  it('refuses a --set that names no field of the event', async () => {
    // Act
    const refused = invoke({}, 'events/invoke/resume.json', '--set', 'nowhere.deep.id=x');

    // Assess
    await expect(refused).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no object at nowhere.deep'),
    });
  }, 90_000);
});
