export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { mapAiSdkError } from './errors.js';
export { AiSdkEventMapper } from './events.js';
export { AiSdkModule, aiSdkAgent } from './module.js';
export { AI_SDK_RESERVED_RUN_OPTIONS, type AiSdkAgentDefinition, AiSdkRunner } from './runner.js';
export {
  AiSdkIntegration,
  type AiSdkTool,
  aiSdkToolSet,
  INTEGRATION as AI_SDK_INTEGRATION,
} from './tools.js';
