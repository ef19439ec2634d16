import * as z from 'zod/mini';
import { InvalidDecisions, PauseUnsupported } from './errors.js';
import { lazySchema } from './lazy-schema.js';
import { bindingOf, boundTo } from './ownership.js';
import { PAUSED_RUN_SCHEMA_VERSION, type PausedRun } from './paused-run.js';
import type { PausedReply } from './requests.js';
import type { Decision, RunnerPaused } from './runner.js';
import type { SessionData } from './session.js';
import { PausedRunNotFound, type PausedRunStore, RunAlreadyResumed } from './stores.js';
import type { ToolApproval } from './tool-context.js';
import {
  loadTurn,
  newSessionFor,
  type PreparedTurn,
  runnerInput,
  type TurnDeps,
  type TurnSetup,
  toolCtx,
} from './turn.js';

export const DecisionSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    status: z.enum(['approved', 'denied']),
    /** Shown to the model with a denial, or recorded with an approval. */
    message: z.optional(z.string().check(z.maxLength(4_000))),
    /** Edited arguments for an approved tool call, where the framework allows edits. */
    arguments: z.optional(z.unknown()),
  }),
);
export const DecisionsSchema = /* @__PURE__ */ lazySchema(() =>
  z.array(DecisionSchema).check(z.minLength(1, 'at least one decision is needed')),
);

export interface PauseDeps extends TurnDeps {
  readonly pausedRuns: PausedRunStore;
  /** How long a paused run waits for its decisions. */
  readonly pausedRunTtlMs: number;
  /**
   * How long a resume's claim holds before another resume may take it over (the holder died
   * without releasing it). It must exceed the longest resume: see `DEFAULT_RESUME_CLAIM_MS`.
   */
  readonly resumeClaimMs: number;
}

/** A resume's prepared turn and the claim it holds, which the engine gives back on failure. */
export interface PreparedResume extends PreparedTurn {
  readonly claim: { readonly token: string };
}

/** Every interruption decided exactly once, and nothing else. */
export function checkDecisions(run: PausedRun, decisions: readonly Decision[]): void {
  const known = new Set(run.interruptions.map((i) => i.id));
  const seen = new Set<string>();
  for (const decision of decisions) {
    if (!known.has(decision.id)) {
      throw new InvalidDecisions(`Run "${run.runId}" has no interruption "${decision.id}".`);
    }
    if (seen.has(decision.id)) {
      throw new InvalidDecisions(`Interruption "${decision.id}" was decided twice.`);
    }
    seen.add(decision.id);
  }
  const missing = [...known].filter((id) => !seen.has(id));
  if (missing.length > 0) {
    throw new InvalidDecisions(
      `Every interruption needs a decision; missing: ${missing.join(', ')}.`,
    );
  }
}

/**
 * Stores the paused run, then marks the session so no new turn starts before it is resumed.
 * The session's runner state and context stay as they were: they change only on success.
 */
export async function pauseTurn(
  deps: PauseDeps,
  turn: PreparedTurn,
  result: RunnerPaused,
  /** The text the agent streamed before it paused: kept in the reply, not the session. */
  text = '',
): Promise<PausedReply> {
  const { agent, runId, sessionId } = turn.setup;
  const now = deps.now();
  const base = turn.stored?.data ?? newSessionFor(deps, turn.setup);
  await deps.pausedRuns.put({
    ...bindingOf(base),
    schemaVersion: PAUSED_RUN_SCHEMA_VERSION,
    runId,
    sessionId,
    agent: agent.name,
    runner: agent.runner.name,
    createdAt: now,
    expiresAt: now + deps.pausedRunTtlMs,
    status: 'pending',
    interruptions: result.interruptions as PausedRun['interruptions'],
    state: result.pausedState,
  });
  const paused = [
    ...(base.paused ?? []).filter((p) => p.runId !== runId && p.expiresAt > now),
    { runId, expiresAt: now + deps.pausedRunTtlMs },
  ];
  const next: SessionData = { ...base, agent: agent.name, paused, updatedAt: now };
  await deps.sessions.save(next, turn.stored?.version ?? 0);
  return {
    status: 'paused',
    runId,
    sessionId,
    agent: agent.name,
    interruptions: [...result.interruptions],
    ...(text ? { text } : {}),
  };
}

/**
 * Loads and checks what a resume needs, then claims the paused run (pending → resuming): of two
 * concurrent resumes exactly one gets past the claim. A claim whose holder died lapses after
 * `resumeClaimMs` and is taken over here.
 */
export async function prepareResume(
  deps: PauseDeps,
  setup: TurnSetup,
  run: PausedRun,
  decisions: readonly Decision[],
): Promise<PreparedResume> {
  const { agent, runId, sessionId } = setup;
  // The owner check comes first: another principal learns nothing about the run.
  const { stored, data, info } = await loadTurn(deps, setup);
  // Of this life of the session only: a run kept from before a clear or expiry is not found.
  if (!stored || !boundTo(run, data)) throw new PausedRunNotFound(sessionId, runId);
  if (run.runner !== agent.runner.name) {
    throw new PauseUnsupported(
      `Run "${runId}" was paused by the ${run.runner} runner; agent "${agent.name}" now uses ${agent.runner.name}.`,
    );
  }
  checkDecisions(run, decisions);
  // Last, so nothing after it can fail and strand the claim (a stranded one still lapses). It
  // also answers "not found" and "already resuming" with typed errors.
  const claimed = await deps.pausedRuns.claim(sessionId, runId, { claimMs: deps.resumeClaimMs });
  if (claimed.takeover && stored && !data.paused?.some((p) => p.runId === runId)) {
    // The lapsed holder stored the session (its marker gone) and died before deleting the run:
    // the decisions were applied. Running them again would repeat the tool calls.
    await deps.pausedRuns.delete(sessionId, runId);
    throw new RunAlreadyResumed(sessionId, runId);
  }
  return {
    claim: { token: claimed.token },
    setup,
    stored,
    info,
    input: runnerInput(setup, info, data),
    toolContext: { ...toolCtx(setup, info), decisions: decisionsById(decisions) },
    resume: { pausedState: claimed.run.state, decisions },
  };
}

/** The decisions as the tool layer reads them (`ToolContext.decisions`), by interruption id. */
function decisionsById(decisions: readonly Decision[]): Record<string, ToolApproval> {
  return Object.fromEntries(
    decisions.map((d) => [
      d.id,
      {
        status: d.status,
        ...(d.message === undefined ? {} : { message: d.message }),
        ...(d.arguments === undefined ? {} : { arguments: d.arguments }),
      },
    ]),
  );
}
