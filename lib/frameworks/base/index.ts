export {
  availableIntegrations,
  configureDiscovery,
  type DiscoveryLogger,
  type DiscoveryOptions,
  getIntegration,
} from './discovery.js';
export { IntegrationError } from './errors.js';
export {
  type BoundToolContext,
  type ExportOptions,
  type Integration,
  IntegrationBase,
  integrationProblem,
} from './integration.js';
export {
  INTEGRATION_MAP_KEY,
  type IntegrationMapEntry,
  type WrittenEntry,
  writeIntegrationMap,
} from './integration-map.js';
