/**
 * Each function's memory (MB), sized from `npm run bench:memory` (docs/scaling.md): the peak RSS
 * it measured, times HEADROOM for a longer session, GC slack and the memory Lambda itself keeps,
 * rounded up to 64 MB and never below Lambda's 128. CPU comes with memory on Lambda (a full vCPU
 * at 1,769 MB): below these a cold start and the turn's own work get slower, and below the peak
 * the function is killed mid-turn. `-c agentMemoryMb` sets the agent-running functions' memory.
 */
export const HEADROOM = 1.5;
const STEP_MB = 64;
const MIN_MB = 128;

/** The rule: peak RSS (MB) → the memory to deploy (MB). */
export function sizedMemoryMb(peakRssMb: number): number {
  return Math.max(MIN_MB, Math.ceil((peakRssMb * HEADROOM) / STEP_MB) * STEP_MB);
}

/**
 * The worker: sized from the heaviest framework's peak (Mastra, 188 MB: docs/scaling.md); `-c workerMemoryMb`
 * overrides. It spends its turns waiting on the model, so its GB-seconds are most of the bill.
 */
export const WORKER_MEMORY_MB = 320;
/**
 * The other functions that run agents (http, invoke, stream): a client waits on each of their
 * cold starts, so they keep a full GB's CPU; `-c agentMemoryMb` overrides.
 */
export const AGENT_MEMORY_MB = 1024;
/** The functions that never run an agent. */
export const SMALL_MEMORY_MB = 256;

/** What each function gets by default (the bench prints it beside what it measured). */
export const DEFAULT_MEMORY_MB: Record<string, number> = {
  worker: WORKER_MEMORY_MB,
  http: AGENT_MEMORY_MB,
  invoke: AGENT_MEMORY_MB,
  stream: AGENT_MEMORY_MB,
  approvals: SMALL_MEMORY_MB,
  authorizer: SMALL_MEMORY_MB,
  fanout: SMALL_MEMORY_MB,
  'ws-connect': SMALL_MEMORY_MB,
  'ws-disconnect': SMALL_MEMORY_MB,
  'ws-message': SMALL_MEMORY_MB,
};
