export { Agent, type AgentCard, type AgentConfig, AgentNameSchema } from './agent.js';
export { BoundaryTracker } from './boundaries.js';
export * from './errors.js';
export {
  type EventOf,
  isTerminalEvent,
  type StreamEvent,
  StreamEventSchema,
  type StreamEventType,
  TERMINAL_EVENT_TYPES,
} from './events.js';
export type { PostHook, PreHook, PreHookResult, StreamEventHookResult, TurnInfo } from './hooks.js';
export type {
  CallState,
  JournalEntry,
  JournalRecords,
  ModelRecord,
  OutcomeRecord,
  RunJournal,
  RunJournalStore,
  ToolCallOutcome,
  ToolEffects,
  ToolEntry,
} from './journal.js';
export { type LedgerEntry, LedgerEntrySchema, type ToolLedger } from './ledger.js';
export { asJson, canonicalJson, journaledModelStep, modelRequestKey } from './model-step.js';
export { Module, type WrapOptions } from './module.js';
export {
  FORBIDDEN_KEYS,
  findForbiddenKey,
  PAUSED_RUN_SCHEMA_VERSION,
  type PausedRun,
  PausedRunSchema,
  SafeJsonSchema,
} from './paused-run.js';
export { parsePausedRun } from './paused-run-migrations.js';
export { historyRequestKey } from './request-key.js';
export * from './requests.js';
export { checkDecisions, DecisionSchema, DecisionsSchema } from './resume.js';
export {
  failureOutcome,
  idempotencyKeyOf,
  type OpenRunJournalOptions,
  openRunJournal,
} from './run-journal.js';
export {
  assertNoReservedKeys,
  type ReservedRunOptions,
  type RunOptions,
  type RunOptionsContext,
  type RunOptionsFactory,
  type RunOptionsValidator,
} from './run-options.js';
export type {
  Decision,
  Runner,
  RunnerCompleted,
  RunnerInput,
  RunnerPaused,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from './runner.js';
export type { ResumeCallOptions } from './runtime.js';
export { type RunCallOptions, Runtime, type RuntimeOptions } from './runtime.js';
export {
  type JsonValue,
  JsonValueSchema,
  newSession,
  SESSION_SCHEMA_VERSION,
  type SessionData,
  SessionDataSchema,
  SessionIdSchema,
  type SessionStore,
  type StoredSession,
} from './session.js';
export { InProcessSessionLock, type Release, type SessionLock } from './session-lock.js';
export * from './stores.js';
export {
  currentToolContext,
  runWithToolContext,
  type ToolApproval,
  type ToolContext,
  tryToolContext,
} from './tool-context.js';
export {
  activeSpan,
  inSpan,
  noopTracer,
  type PayloadOptions,
  type Span,
  type SpanAttributes,
  type SpanKind,
  type SpanOptions,
  type SpanRole,
  startChildSpan,
  type Tracer,
  traceChild,
  withActiveSpan,
} from './tracer.js';
