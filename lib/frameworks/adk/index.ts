export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { mapAdkError, mapAdkEventError } from './errors.js';
export { AdkEventMapper } from './events.js';
export { type GeminiModelParams, geminiModel } from './gemini.js';
export { KernelLlm } from './model.js';
export { AdkModule, adkAgent } from './module.js';
export { ADK_RESERVED_RUN_OPTIONS, AdkRunner } from './runner.js';
export { SlotSessionService } from './state.js';
export { AdkIntegration, AdkSpecTool, INTEGRATION as ADK_INTEGRATION } from './tools.js';
