export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { mapMastraError } from './errors.js';
export { MastraEventMapper } from './events.js';
export { MastraModule, mastraAgent } from './module.js';
export { MASTRA_RESERVED_RUN_OPTIONS, type MastraNativeAgent, MastraRunner } from './runner.js';
export {
  INTEGRATION as MASTRA_INTEGRATION,
  MastraIntegration,
  type MastraTool,
  mastraToolSet,
} from './tools.js';
