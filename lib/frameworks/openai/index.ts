export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { mapOpenAIError } from './errors.js';
export { OpenAIEventMapper } from './events.js';
export { OpenAIModule, openaiAgent } from './module.js';
export {
  type NativeOpenAIAgent,
  OPENAI_RESERVED_RUN_OPTIONS,
  OpenAIRunner,
  type OpenAIRunnerOptions,
} from './runner.js';
export { INTEGRATION as OPENAI_INTEGRATION, OpenAIIntegration, type OpenAITool } from './tools.js';
