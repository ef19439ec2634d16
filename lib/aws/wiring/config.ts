import { checkedConfig, presentConfig } from './config-check.js';
import { fastConfig } from './config-fast.js';
import { type Config, type ConfigKey, ConfigSchema } from './config-schema.js';

export { bothModelSecretsError, modelKeyVariableProblem } from './config-check.js';
/**
 * Everything the functions read from the environment (config-schema.ts), checked once at cold
 * start. Each function names the variables it cannot work without (`require`), so a missing one
 * fails with its name. Usual values are checked by hand (config-fast.ts); the schema is built
 * only for an unusual or bad one, and its messages are the errors. config-light.ts is the same
 * without importing the schema before it is needed.
 */
export { type Config, type ConfigKey, ConfigSchema };

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  require: readonly ConfigKey[] = [],
): Config {
  const present = presentConfig(env);
  const fast = fastConfig(present);
  return checkedConfig(
    fast ? { success: true, data: fast } : ConfigSchema.safeParse(present),
    require,
  );
}
