import { PassThrough } from 'node:stream';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it } from 'vitest';
import { NotFound } from '../../../lib/app/errors.js';
import {
  handlerWith,
  httpErrors,
  invokeErrors,
  withLogging,
  withStreamLogging,
} from '../../../lib/aws/middleware/handler-stack.js';
import { activeSpan, type Span, type Tracer } from '../../../lib/core/tracer.js';
import { fakeLambdaContext } from '../../../lib/testing/index.js';
import { type FlushableTracer, registerBuffering } from '../../../lib/tracing/multi.js';
import { captureJsonLines } from '../../helpers/json-lines.js';

/** A tracer that records its spans and counts its flushes (as the otel backend buffers). */
function recordingTracer() {
  const spans: { name: string; errors: unknown[]; ended: boolean }[] = [];
  const events: string[] = [];
  const tracer: FlushableTracer = {
    startSpan(name) {
      const record = { name, errors: [] as unknown[], ended: false };
      spans.push(record);
      const span: Span = {
        setAttributes() {},
        setPayload() {},
        recordError: (error) => void record.errors.push(error),
        end: () => {
          record.ended = true;
          events.push(`end ${name}`);
        },
        traceHeader: () => undefined,
      };
      return span;
    },
    flush: async () => void events.push('flush'),
  };
  return { tracer, spans, events };
}

const lines = captureJsonLines();
const registered: FlushableTracer[] = [];

afterEach(() => {
  for (const tracer of registered.splice(0)) registerBuffering(tracer, false);
});

function buffering() {
  const recorded = recordingTracer();
  registerBuffering(recorded.tracer, true);
  registered.push(recorded.tracer);
  return recorded;
}

const logger = () => new Logger({ serviceName: 'middleware-test', logLevel: 'INFO' });
const redact = (text: string) => text.replaceAll('sk-secret', '[REDACTED]');

describe('withLogging: the tracers flushed, one span per invocation', () => {
  it('flushes after the span ended, whether the handler answered or threw', async () => {
    // Prepare
    const { tracer, events } = buffering();
    const ok = withLogging(logger(), async () => 'ok', { tracer: tracer as Tracer, span: 'http' });
    const failing = withLogging(
      logger(),
      async () => {
        throw new Error('boom');
      },
      { tracer: tracer as Tracer, span: 'invoke' },
    );

    // Act
    const answer = await ok({}, fakeLambdaContext('fn'));
    const thrown = await failing({}, fakeLambdaContext('fn')).catch((err: Error) => err.message);

    // Assess
    expect(answer).toBe('ok');
    expect(thrown).toBe('boom');
    expect(events).toEqual(['end http', 'flush', 'end invoke', 'flush']);
  });

  it('makes the span active inside the handler and records a thrown error on it', async () => {
    // Prepare
    const { tracer, spans } = recordingTracer();
    let inside: Span | undefined;
    const handler = withLogging(
      logger(),
      async () => {
        inside = activeSpan();
        throw new Error('boom');
      },
      { tracer, span: 'invoke' },
    );

    // Act
    await handler({}, fakeLambdaContext('fn')).catch(() => undefined);

    // Assess
    expect(inside).toBeDefined();
    expect(spans).toMatchObject([{ name: 'invoke', ended: true }]);
    expect(spans[0]?.errors).toHaveLength(1);
  });
});

describe('httpErrors / invokeErrors: a thrown error as the answer', () => {
  it('answers our error with its status and code, inside the span: a refusal is no failed span', async () => {
    // Prepare
    const { tracer, spans } = recordingTracer();
    const log = logger();
    const inner = handlerWith(
      async () => {
        throw new NotFound('Route GET /nowhere');
      },
      httpErrors({ logger: log, failure: 'http request failed', redact }),
    );
    const handler = withLogging(log, inner, { tracer, span: 'http' });

    // Act
    const response = await handler({}, fakeLambdaContext('http'));

    // Assess
    expect(response).toMatchObject({ statusCode: 404 });
    expect(JSON.parse(String((response as { body: string }).body))).toMatchObject({
      type: 'error',
      code: 'not-found',
    });
    expect(spans[0]?.errors).toEqual([]);
    expect(lines.filter((l) => l.message === 'http request failed')).toEqual([]);
  });

  it('answers any other error internal-error, never its text, and logs it (redacted)', async () => {
    // Prepare
    const handler = handlerWith(
      async () => {
        throw new Error('db password sk-secret leaked');
      },
      httpErrors({ logger: logger(), failure: 'http request failed', redact }),
    );

    // Act
    const response = await handler({});

    // Assess
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('password');
    expect(JSON.parse(String(response.body))).toMatchObject({ code: 'internal-error' });
    const logged = lines.filter((l) => l.message === 'http request failed');
    expect(logged).toHaveLength(1);
  });

  it('gives a direct invoke the error body with the payload requestId', async () => {
    // Prepare
    const handler = handlerWith(
      async (_event: unknown) => {
        throw new NotFound('Session s1');
      },
      invokeErrors<unknown, never>({ failure: 'invoke failed', redact }),
    );

    // Act
    const body = await handler({ requestId: 'req-1', action: 'run' });
    const without = await handler({ action: 'run' });

    // Assess
    expect(body).toEqual({
      type: 'error',
      requestId: 'req-1',
      code: 'not-found',
      message: expect.any(String),
    });
    expect(without).not.toHaveProperty('requestId');
  });
});

describe('withStreamLogging: the streaming front', () => {
  it('flushes after the response stream ended, and writes lines with the Lambda context', async () => {
    // Prepare
    const { events } = buffering();
    const log = logger();
    const stream = new PassThrough();
    const handler = withStreamLogging(log, async (_event: unknown, out) => {
      log.info('streaming');
      await new Promise((resolve) => setTimeout(resolve, 10));
      out.end('data: done\n\n');
      events.push(`body ended: ${out.writableEnded}`);
    });

    // Act
    await handler({}, stream, fakeLambdaContext('stream-fn'));

    // Assess
    expect(events).toEqual(['body ended: true', 'flush']);
    expect(lines.find((l) => l.message === 'streaming')).toMatchObject({
      function_name: 'stream-fn',
    });
  });

  it('flushes too when the handler throws, and passes the error on', async () => {
    // Prepare
    const { events } = buffering();
    const handler = withStreamLogging(logger(), async () => {
      throw new Error('broken');
    });

    // Act
    const thrown = await handler({}, new PassThrough(), undefined).catch((e: Error) => e.message);

    // Assess
    expect(thrown).toBe('broken');
    expect(events).toEqual(['flush']);
  });
});
