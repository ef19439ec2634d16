import { createServer, type Server } from 'node:http';
import { Agent, OpenAIProvider, Runner } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mapAiSdkError } from '../../../lib/frameworks/ai-sdk/errors.js';
import { mapLangGraphError } from '../../../lib/frameworks/langgraph/errors.js';
import { mapOpenAIError } from '../../../lib/frameworks/openai/errors.js';
import { DynamoRunRecordStore } from '../../../lib/stores/dynamodb/index.js';
import { startDynamoProxy } from '../../helpers/faults/dynamo-proxy.js';
import { newClient, newTable } from '../stores/dynamo.js';

/** A model endpoint that starts a streamed response and cuts the connection mid-way. */
let cutter: Server;
let url: string;
beforeAll(async () => {
  cutter = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}\n\n',
    );
    setTimeout(() => res.destroy(), 20);
  });
  await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(cutter.address() as { port: number }).port}/v1`;
});
afterAll(() => {
  cutter.closeAllConnections();
  cutter.close();
});

async function cutStreamError(): Promise<unknown> {
  const openai = new OpenAI({ apiKey: 'k', baseURL: url, maxRetries: 0 });
  const provider = new OpenAIProvider({ openAIClient: openai, useResponses: true });
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  try {
    const result = await runner.run(new Agent({ name: 'a', model: 'm' }), 'hi', { stream: true });
    for await (const _ of result) {
      // Drain until the cut surfaces.
    }
    await result.completed;
    return result.error;
  } catch (err) {
    return err;
  }
}

describe('error codes', () => {
  it('maps a model stream cut mid-way to model-error in every framework mapping', async () => {
    // Prepare
    const err = await cutStreamError();

    // Act
    const mapped = [mapOpenAIError(err, 'a'), mapLangGraphError(err, 'a'), mapAiSdkError(err)];

    // Assess
    expect(err).toBeInstanceOf(Error);
    for (const m of mapped) {
      expect(m).toMatchObject({ code: 'model-error', message: expect.stringContaining('cut off') });
    }
  });

  it('ends a DynamoDB call throttled past the SDK retries with store-throttled', async () => {
    // Prepare
    const endpoint = inject('dynaliteEndpoint');
    const { tableName } = await newTable(endpoint);
    const proxy = await startDynamoProxy(endpoint);
    const runs = new DynamoRunRecordStore({ client: newClient(proxy.url), tableName });
    proxy.setRule(() => true);

    // Act
    const result = await runs.get('s', 'r').catch((e: unknown) => e);
    await proxy.close();

    // Assess
    expect(result).toMatchObject({ code: 'store-throttled', name: 'StoreThrottled' });
  });
});
