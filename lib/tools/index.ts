export type { ToolEffects } from '../core/journal.js';
export {
  type ApprovalDecision,
  type ApprovalPort,
  type ApprovalRequest,
  approvalFrom,
  approveAll,
  denyAll,
  pauseForApproval,
} from './approval.js';
export { ResultCache } from './cache.js';
export * from './errors.js';
export {
  completeContext,
  Executor,
  type ExecutorOptions,
  type RunLimits,
  type RunSpecOptions,
  runnerFor,
  type ToolCallInfo,
  type ToolHook,
  type ToolOutcome,
  type ToolRunner,
} from './executor.js';
export {
  asksToRunAgain,
  declareEffects,
  effectsOf,
  type GuardedCall,
  type GuardedContext,
  gateDecision,
  gateInterruption,
  guardCall,
  guardNativeTool,
  UNKNOWN_OUTCOME_PROMPT,
  unknownOutcomeError,
  unknownOutcomeId,
} from './guard.js';
export { canonicalJson, hashArgs, InMemoryToolLedger } from './ledger.js';
export { ToolRegistry } from './registry.js';
export {
  type AnyToolSpec,
  type CachePolicy,
  defineTool,
  directContext,
  type RetryPolicy,
  standaloneContext,
  type ToolCallContext,
  type ToolHandler,
  ToolNameSchema,
  type ToolSpec,
  type ToolSpecConfig,
} from './spec.js';
