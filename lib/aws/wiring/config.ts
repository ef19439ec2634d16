export {
  bothModelSecretsError,
  loadConfig,
  modelKeyVariableProblem,
} from './config-check.js';
/** The variables' schema: their documentation, their types and the hand check's reference. */
export { type Config, type ConfigKey, ConfigSchema } from './config-schema.js';
