import { importPeer } from '../core/peer.js';
import { noopTracer, type Tracer } from '../core/tracer.js';
import { CloudWatchBackend, type CloudWatchTracerOptions } from './cloudwatch-backend.js';
import type { TracingConfig } from './config.js';
import { TracingConfigInvalid } from './errors.js';
import { LazyTracer } from './lazy.js';
import { MultiTracer } from './multi.js';
import type { OtelTracerOptions } from './otel.js';
import { otlpTargets } from './otel-presets.js';

export type CreateTracerOptions = CloudWatchTracerOptions &
  Pick<OtelTracerOptions, 'exporters' | 'flushTimeoutMs'> & {
    /** Awaited before the OTel backend is built (lib/aws reads the presets' secret into env). */
    readonly prepareOtel?: () => Promise<void>;
    /** Told when a lazily built backend fails (its spans are then not recorded). */
    readonly onBackendError?: (error: unknown) => void;
  };

export type OtelFactory = (options: OtelTracerOptions) => Tracer;
let registered: OtelFactory | undefined;

/**
 * The public entry (index.ts), which exports `OtelTracer` anyway, registers it here so that
 * `createTracer` builds it at once. lib/aws imports this file alone: there the OTel SDK is
 * imported only by a function configured for it.
 */
export function registerOtelBackend(factory: OtelFactory): void {
  registered = factory;
}

/**
 * The tracer a checked configuration asks for (select.ts reads it with the schema at hand,
 * select-light.ts without): OTel presets share one OtelTracer; several backends make a
 * MultiTracer. No zod is imported from here.
 */
export function tracerForConfig(
  config: TracingConfig,
  options: CreateTracerOptions,
  cloudWatch: (options: CreateTracerOptions, config: TracingConfig) => Tracer = (o, c) =>
    new CloudWatchBackend(o, c),
): Tracer {
  const tracers: Tracer[] = [];
  if (config.backend === 'cloudwatch') tracers.push(cloudWatch(options, config));
  if (config.otel.length > 0) tracers.push(otelBackend(options, config));
  if (tracers.length === 0) return noopTracer;
  return tracers.length === 1 ? tracers[0]! : new MultiTracer(tracers);
}

function otelBackend(options: CreateTracerOptions, config: TracingConfig): Tracer {
  const otelOptions: OtelTracerOptions = { ...options, config };
  if (registered && !options.prepareOtel) return registered(otelOptions);
  // A missing preset variable fails now, as it would with the backend built at once.
  if (!options.prepareOtel) otlpTargets(config.otel, options.env ?? process.env);
  return new LazyTracer(async () => {
    try {
      await options.prepareOtel?.();
      const { OtelTracer } = await loadOtel();
      return new OtelTracer(otelOptions);
    } catch (err) {
      options.onBackendError?.(err);
      throw err;
    }
  });
}

async function loadOtel(): Promise<typeof import('./otel.js')> {
  // Bundles deployed without an OTel preset define this as "false" (infra/bundling.ts): esbuild
  // then drops this branch and, with it, the OTel SDK.
  if (process.env.AGENT_KERNEL_BUNDLE_OTEL !== 'false') {
    // otel.js imports the OTel SDK and exporter, optional peers: a missing one is named.
    return importPeer(() => import('./otel.js'), 'The OTel tracing backend');
  }
  throw new TracingConfigInvalid(
    'AGENT_KERNEL_TRACING names an OTel preset, but this bundle was built without the OTel backend (set the CDK context "tracing" and deploy again)',
  );
}
