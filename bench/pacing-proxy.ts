import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * A model that streams at a model's speed: a proxy in front of the scripted model server
 * (bench/delivery.ts, the local streaming tests).
 */
export interface PacingProxy {
  url: string;
  /** Text deltas per second; 0 lets them through as they come. */
  pace: number;
  /** Held before each response starts (a model's time to first byte); 0 by default. */
  firstByteMs: number;
  /** When each delta (by its text) was written to the runner's connection. */
  readonly written: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Sits between the OpenAI client and the scripted model server: passes every request through
 * and re-emits the Responses API SSE stream event by event, holding each text delta back until
 * its slot at `pace` deltas per second.
 */
export async function startPacingProxy(target: string): Promise<PacingProxy> {
  const written = new Map<string, number>();
  const proxy: PacingProxy = {
    url: '',
    pace: 0,
    firstByteMs: 0,
    written,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const base = new URL(target);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'content-length'].includes(key))
          headers[key] = value;
      }
      const upstream = await fetch(new URL(req.url ?? '/', base.origin), {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      if (proxy.firstByteMs > 0) await sleep(proxy.firstByteMs);
      const type = upstream.headers.get('content-type') ?? '';
      res.writeHead(upstream.status, { 'content-type': type });
      if (!type.startsWith('text/event-stream') || !upstream.body) {
        res.end(Buffer.from(await upstream.arrayBuffer()));
        return;
      }
      res.flushHeaders();
      const decoder = new TextDecoder();
      const started = performance.now();
      let deltas = 0;
      let buffer = '';
      for await (const piece of upstream.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(piece, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          const delta = /^event: response\.output_text\.delta\n/.test(event)
            ? (JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { delta: string }).delta
            : undefined;
          if (delta !== undefined) {
            if (proxy.pace > 0) {
              const due = started + (deltas * 1000) / proxy.pace;
              const wait = due - performance.now();
              if (wait > 0) await sleep(wait);
            }
            deltas += 1;
            written.set(delta, performance.now());
          }
          res.write(event);
        }
      }
      res.end(buffer);
    })().catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${base.pathname}`;
  return proxy;
}
