import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PacingProxy, startPacingProxy } from '../../../bench/pacing-proxy.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';
import { http, pause } from '../local/clients.js';

const TOKENS = 100;
const word = (i: number) => ` w${String(i).padStart(3, '0')}`;
const ANSWER = Array.from({ length: TOKENS }, (_, i) => word(i)).join('');

/** A model that takes ~1 s per answer: the client leaves while the run is still streaming. */
describe('a streamed run whose client disconnects', () => {
  let model: ScriptedModelServer;
  let proxy: PacingProxy;
  let stack: LocalStack;

  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'OPENAI_API_KEY'])
      delete process.env[key];
    model = await startScriptedModelServer({ chunkSize: 5, fallback: { text: ANSWER } });
    proxy = await startPacingProxy(model.url);
    proxy.pace = TOKENS;
    process.env.OPENAI_BASE_URL = proxy.url;
    stack = await startLocalStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
    await model?.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
  });

  it('finishes and stores the whole answer after the client went away mid-stream', async () => {
    // Prepare: read the stream up to its first text delta
    const token = await stack.tokenFor('leaver');
    const controller = new AbortController();
    const response = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ agent: 'demo', sessionId: 'leaver-s', input: 'A long story.' }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    while (!received.includes('text-delta')) {
      received += new TextDecoder().decode((await reader.read()).value);
    }
    const runId = /"runId":"([^"]+)"/.exec(received)?.[1];

    // Act
    controller.abort();
    const atAbort = await http(stack, 'leaver', 'GET', `/sessions/leaver-s/runs/${runId}`);

    // Assess: still running when the client left; then completed with every token stored
    expect(atAbort.body.status).toBe('running');
    expect(received).not.toContain('run-finished');
    let record = atAbort;
    for (let i = 0; i < 100 && record.body.status === 'running'; i++) {
      await pause(100);
      record = await http(stack, 'leaver', 'GET', `/sessions/leaver-s/runs/${runId}`);
    }
    expect(record.body.status).toBe('completed');
    expect(record.body.reply.text).toBe(ANSWER);
    const session = await http(stack, 'leaver', 'GET', '/sessions/leaver-s');
    expect(session.body.turns).toBe(1);
  });
});
