import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type DiagLogger, diag } from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { OtelTracer } from '../../../lib/tracing/index.js';
import { OtlpHttpExporter } from '../../../lib/tracing/otlp-http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, nthOnSocket: number) => void;

/** A collector on 127.0.0.1 whose answer to each request `handle` decides. */
async function collector(handle: Handler) {
  const bodies: string[] = [];
  const seen = new Map<Socket, number>();
  const server = createServer((req, res) => {
    const n = (seen.get(req.socket) ?? 0) + 1;
    seen.set(req.socket, n);
    handle(req, res, n);
  });
  const keep = (req: IncomingMessage, then: () => void) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      then();
    });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closers.push(close);
  return { url, bodies, keep, requests: () => [...seen.values()].reduce((a, b) => a + b, 0) };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** One ended span named `name`, from the real SDK. */
async function batch(name: string): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    sampler: new AlwaysOnSampler(),
  });
  provider.getTracer('otlp-http-test').startSpan(name).end();
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

function exporter(url: string, timeoutMillis?: number): OtlpHttpExporter {
  const out = new OtlpHttpExporter({ url, ...(timeoutMillis ? { timeoutMillis } : {}) });
  closers.push(() => out.shutdown());
  return out;
}

function send(target: OtlpHttpExporter, spans: ReadableSpan[]) {
  return new Promise<{ code: number; error?: Error }>((resolve) => target.export(spans, resolve));
}

const names = (bodies: string[]) =>
  bodies.map((b) => JSON.parse(b).resourceSpans[0].scopeSpans[0].spans[0].name as string);

describe('OtlpHttpExporter against a real collector', () => {
  it('sends a batch again, once, when a kept-alive socket was reset', async () => {
    // Prepare: the collector drops the connection on its second request (a socket it
    // closed while the sandbox was frozen), then answers on a new one.
    const c = await collector((req, res, n) => {
      if (n === 2) req.socket.destroy();
      else c.keep(req, () => res.writeHead(200).end('{}'));
    });
    const target = exporter(c.url);

    // Act
    const first = await send(target, await batch('one'));
    const second = await send(target, await batch('two'));

    // Assess: three requests, each batch arrived exactly once.
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(c.requests()).toBe(3);
    expect(names(c.bodies)).toEqual(['one', 'two']);
    expect(c.bodies[1]).not.toBe('');
  });

  it('retries a reset socket only once', async () => {
    // Prepare: the first request is answered, every later one is reset.
    const c = await collector((req, res) => {
      if (c.requests() === 1) c.keep(req, () => res.writeHead(200).end('{}'));
      else req.socket.destroy();
    });
    const target = exporter(c.url);
    await send(target, await batch('one'));

    // Act
    const result = await send(target, await batch('two'));

    // Assess: the reused socket and one new one, then the batch is dropped.
    expect(result.code).toBe(1);
    expect((result.error as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(c.requests()).toBe(3);
  });

  it('reports a non-2xx answer with its status and reason, without retrying', async () => {
    // Prepare
    const c = await collector((req, res) =>
      c.keep(req, () => res.writeHead(503).end('overloaded')),
    );
    const target = exporter(c.url);

    // Act
    const result = await send(target, await batch('refused'));

    // Assess
    expect(result.code).toBe(1);
    expect(result.error).toMatchObject({ code: 'otlp-export-failed' });
    expect(result.error?.message).toBe('OTLP export failed: collector answered 503 overloaded');
    expect(c.requests()).toBe(1);
  });

  it('gives up on a collector that never answers, within its timeout', async () => {
    // Prepare: the request is read, no answer ever comes.
    const c = await collector((req) => c.keep(req, () => undefined));
    const target = exporter(c.url, 150);

    // Act
    const result = await send(target, await batch('hung'));

    // Assess: the export ended itself, after the collector had the whole batch.
    expect(result.code).toBe(1);
    expect(result.error).toMatchObject({
      code: 'otlp-export-failed',
      message: 'OTLP export failed: no answer within 150 ms',
    });
    expect(names(c.bodies)).toEqual(['hung']);
    expect(c.requests()).toBe(1);
  });
});

describe('a refused export in the otel backend', () => {
  it('is logged on the diag channel, never thrown, and sent once', async () => {
    // Prepare
    const c = await collector((req, res) => c.keep(req, () => res.writeHead(401).end('bad key')));
    const errors: unknown[][] = [];
    const logger = { error: (...args: unknown[]) => errors.push(args) } as unknown as DiagLogger;
    diag.setLogger(logger);
    closers.push(async () => diag.disable());
    const tracer = new OtelTracer({
      env: {
        AGENT_KERNEL_TRACING: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: c.url.replace('/v1/traces', ''),
      },
    });
    closers.push(() => tracer.close());

    // Act
    tracer.startSpan('turn', {}, { kind: 'run' }).end();
    await tracer.flush();

    // Assess
    expect(c.requests()).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.[0]).toBe('dropped 1 spans');
    expect(errors[0]?.[1]).toMatchObject({
      code: 'otlp-export-failed',
      message: 'OTLP export failed: collector answered 401 bad key',
    });
  });
});
