import type { Tracer } from '../core/tracer.js';
import { tracingConfigLight } from './config-light.js';
import { type CreateTracerOptions, tracerForConfig } from './select-backends.js';

/**
 * createTracer (select.ts) for the functions that bundle no zod (fan-out): the configuration is
 * checked by hand (config-fast.ts), without the schemas' module.
 */
export async function createTracerLight(options: CreateTracerOptions = {}): Promise<Tracer> {
  const config = tracingConfigLight(options.env ?? process.env, options.config);
  return tracerForConfig(config, options);
}
