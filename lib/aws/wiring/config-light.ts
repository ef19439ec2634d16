import { checkedConfig, presentConfig } from './config-check.js';
import { fastConfig } from './config-fast.js';
import type { Config, ConfigKey } from './config-schema.js';

/**
 * loadConfig (config.ts) for the functions that bundle no zod (fan-out, WebSocket connect and
 * disconnect): the schema module — and zod with it — is imported only for a value the hand
 * check leaves to it, so a usual cold start neither parses nor runs zod.
 */
export async function loadConfigLight(
  env: Record<string, string | undefined> = process.env,
  require: readonly ConfigKey[] = [],
): Promise<Config> {
  const present = presentConfig(env);
  const fast = fastConfig(present);
  if (fast) return checkedConfig({ success: true, data: fast }, require);
  const { ConfigSchema } = await import('./config-schema.js');
  return checkedConfig(ConfigSchema.safeParse(present), require);
}
