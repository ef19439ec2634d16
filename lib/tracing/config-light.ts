import type { TracingConfig } from './config.js';
import {
  fromTracingEnv,
  handTracingConfig,
  handTracingEnv,
  presentTracingEnv,
} from './config-fast.js';

/**
 * tracingConfigFromEnv (config.ts) for the functions that bundle no zod: the same hand checks,
 * without importing config.ts's schemas.
 */
export function tracingConfigLight(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<TracingConfig> = {},
): TracingConfig {
  const config = fromTracingEnv(handTracingEnv(presentTracingEnv(env)), overrides);
  return handTracingConfig(config) as TracingConfig;
}
