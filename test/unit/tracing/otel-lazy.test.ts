import { resolve } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE, bundleDefine } from '../../../infra/bundling.js';
import { LazyTracer, tracersReady } from '../../../lib/tracing/lazy.js';
import { createTracer } from '../../../lib/tracing/select.js';

// lib/aws imports select.ts alone (not the public index, which registers OtelTracer): there the
// OTel backend is a dynamic import, evaluated only when a preset asks for it.
const ROOT = resolve(import.meta.dirname, '../../..');

async function bundledInputs(define: Record<string, string>): Promise<string[]> {
  const out = await build({
    entryPoints: [resolve(ROOT, 'lib/aws/middleware/observability.ts')],
    bundle: true,
    write: false,
    metafile: true,
    platform: BUNDLE.platform,
    format: BUNDLE.format,
    target: BUNDLE.target,
    mainFields: [...BUNDLE.mainFields],
    minify: true,
    define,
    logLevel: 'silent',
  });
  return Object.keys(out.metafile.inputs);
}

describe('the OTel backend, loaded lazily', () => {
  it('imports the backend on demand and records spans once ready', async () => {
    // Prepare
    const exporter = new InMemorySpanExporter();
    const tracer = createTracer({
      env: { AGENT_KERNEL_TRACING: 'otlp' },
      exporters: [exporter],
      // Always the lazy path: unit files share modules (isolate: false), and one that imported
      // the public tracing index earlier has registered the eager backend in this worker.
      prepareOtel: async () => undefined,
    }) as LazyTracer;

    // Act
    const early = tracer.startSpan('before-ready');
    early.end();
    await tracersReady();
    tracer.startSpan('after-ready').end();
    await tracer.flush();

    // Assess
    expect(tracer).toBeInstanceOf(LazyTracer);
    expect(early.traceHeader()).toBeUndefined();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['after-ready']);
    await tracer.close();
  });

  it('still refuses a preset without its credentials at once', () => {
    expect(() => createTracer({ env: { AGENT_KERNEL_TRACING: 'langfuse' } })).toThrow(
      /LANGFUSE_PUBLIC_KEY: required/,
    );
  });

  it('reports a backend that failed to load and records nothing', async () => {
    // Prepare
    const errors: unknown[] = [];
    const tracer = createTracer({
      env: { AGENT_KERNEL_TRACING: 'otlp' },
      prepareOtel: async () => {
        throw new Error('secret unavailable');
      },
      onBackendError: (err) => errors.push(err),
    }) as LazyTracer;

    // Act
    await tracersReady();
    const span = tracer.startSpan('run');

    // Assess
    expect(errors).toEqual([new Error('secret unavailable')]);
    expect(span.traceHeader()).toBeUndefined();
  });

  it('leaves the OTel SDK out of a bundle deployed without an OTel preset', async () => {
    // Act
    const cloudwatch = await bundledInputs(bundleDefine(['cloudwatch']));
    const langfuse = await bundledInputs(bundleDefine(['cloudwatch', 'langfuse']));

    // Assess
    const otel = (inputs: string[]) => inputs.filter((i) => i.includes('@opentelemetry/'));
    expect(otel(cloudwatch)).toEqual([]);
    expect(cloudwatch).not.toContain('lib/tracing/otel.ts');
    expect(otel(langfuse).length).toBeGreaterThan(10);
    expect(langfuse).toContain('lib/tracing/otel.ts');
  });
});
