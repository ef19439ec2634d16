export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { mapStrandsError } from './errors.js';
export { StrandsEventMapper } from './events.js';
export { StrandsModule, strandsAgent } from './module.js';
export {
  STRANDS_RESERVED_RUN_OPTIONS,
  type StrandsAgentConfig,
  type StrandsAgentDefinition,
  StrandsRunner,
} from './runner.js';
export { SessionSlotStorage } from './state.js';
export { withApproval } from './tool-journal.js';
export { INTEGRATION as STRANDS_INTEGRATION, StrandsIntegration } from './tools.js';
