import type { TracingConfig } from './config.js';
import {
  fastTracingConfig,
  fastTracingEnv,
  fromTracingEnv,
  presentTracingEnv,
} from './config-fast.js';

/**
 * tracingConfigFromEnv (config.ts) for the functions that bundle no zod: the schemas — and zod
 * with them — are imported only for a value the hand checks leave to them, with their answer
 * and messages as before.
 */
export async function tracingConfigLight(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<TracingConfig> = {},
): Promise<TracingConfig> {
  const fastEnv = fastTracingEnv(presentTracingEnv(env));
  const fast = fastEnv && fastTracingConfig(fromTracingEnv(fastEnv, overrides));
  if (fast) return fast as TracingConfig;
  const { tracingConfigFromEnv } = await import('./config.js');
  return tracingConfigFromEnv(env, overrides);
}
