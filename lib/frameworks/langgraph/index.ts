export { declareEffects as withToolEffects } from '../../tools/guard.js';
export { type CheckpointSnapshot, SessionCheckpointSaver } from './checkpointer.js';
export { mapLangGraphError, UnguardedToolCall } from './errors.js';
export { LangGraphEventMapper } from './events.js';
export { LangGraphModule, langgraphAgent } from './module.js';
export {
  type CompiledGraph,
  LANGGRAPH_RESERVED_RUN_OPTIONS,
  type LangGraphAgentDefinition,
  LangGraphRunner,
} from './runner.js';
export {
  type ApprovalInterrupt,
  INTEGRATION as LANGGRAPH_INTEGRATION,
  LangGraphIntegration,
  SpecTool,
} from './tools.js';
