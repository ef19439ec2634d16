import OpenAI from 'openai';
import {
  type ScriptEntry,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';

/** A scripted server and a real OpenAI client pointed at it; small chunks make streams long. */
export async function startWithClient(
  script: ScriptEntry[] = [],
  fallback?: ScriptEntry,
): Promise<{ server: ScriptedModelServer; client: OpenAI }> {
  const server = await startScriptedModelServer({ script, fallback, chunkSize: 4 });
  return { server, client: new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 }) };
}

/** The rejection of `promise`, failing the test if it resolves. */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
