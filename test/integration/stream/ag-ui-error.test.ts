import { HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';
import { http } from '../local/clients.js';

/** A model that refuses every request: the run fails after it started streaming. */
describe('an AG-UI run that fails mid-stream', () => {
  let model: ScriptedModelServer;
  let stack: LocalStack;

  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'OPENAI_API_KEY'])
      delete process.env[key];
    model = await startScriptedModelServer({
      fallback: { error: { status: 400, message: 'scripted refusal' } },
    });
    process.env.OPENAI_BASE_URL = model.url;
    stack = await startLocalStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
  });

  it('ends with RUN_ERROR carrying our code; the run is recorded failed', async () => {
    // Prepare
    const agent = new HttpAgent({
      url: `${stack.streamUrl}/ag-ui`,
      threadId: 'ag-err',
      headers: { authorization: `Bearer ${await stack.tokenFor('ag-err')}` },
    });
    agent.addMessage({ id: 'm-0', role: 'user', content: 'hello' });
    const events: any[] = [];

    // Act
    const outcome = await agent
      .runAgent({}, { onEvent: ({ event }) => void events.push(event) })
      .then(
        () => undefined,
        (err: Error) => err,
      );

    // Assess
    expect(events[0].type).toBe('RUN_STARTED');
    const last = events.at(-1);
    expect(last.type).toBe('RUN_ERROR');
    expect(last.code).toBe('model-error');
    // HttpAgent hands RUN_ERROR to its subscribers and ends the run without throwing.
    expect(outcome).toBeUndefined();
    const run = await http(stack, 'ag-err', 'GET', `/sessions/ag-err/runs/${events[0].runId}`);
    expect(run.body.status).toBe('failed');
    expect(run.body.error.code).toBe('model-error');
  });
});
