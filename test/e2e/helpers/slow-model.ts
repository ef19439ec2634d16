import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { demoResponder } from '../../../examples/demo/offline-model.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptedTurn,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';

/** The long answer "tell me a story" streams, so a test can see it arrive piece by piece. */
export const STORY =
  'Once upon a time a small agent lived in a Lambda function. Every morning it woke up cold, ' +
  'read its session from a table, and streamed its thoughts to whoever asked, a few words at a ' +
  'time, until the story was told and the function went back to sleep.';
export const STORY_REASONING = 'The user wants a story: a short one about an agent will do.';

export interface SlowModel {
  /** An OpenAI-compatible base URL (with `/v1`). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The demo's offline model (plus a reasoning story) behind a proxy that spaces its streamed
 * events `delayMs` apart, as a real model's tokens come: the scripted server sends them at once.
 */
export async function startSlowModel(delayMs = 15): Promise<SlowModel> {
  const model: ScriptedModelServer = await startScriptedModelServer({
    fallback: (request: RecordedRequest): ScriptedTurn | Promise<ScriptedTurn> => {
      const last = JSON.stringify((request.body?.input as unknown[] | undefined)?.at(-1) ?? '');
      if (/tell me a story/i.test(last)) return { reasoning: STORY_REASONING, text: STORY };
      return typeof demoResponder === 'function' ? demoResponder(request) : demoResponder;
    },
  });
  const upstream = new URL(model.url).origin;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      const decoder = new TextDecoder();
      let pending = '';
      for await (const chunk of answer.body ?? []) {
        pending += decoder.decode(chunk as Uint8Array, { stream: true });
        let at = pending.indexOf('\n\n');
        while (at >= 0) {
          res.write(pending.slice(0, at + 2));
          pending = pending.slice(at + 2);
          await sleep(delayMs);
          at = pending.indexOf('\n\n');
        }
      }
      res.end(pending);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await model.close();
    },
  };
}
