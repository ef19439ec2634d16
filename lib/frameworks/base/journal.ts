import { createHash } from 'node:crypto';
import { ToolOutcomeUnknown } from '../../core/errors.js';
import type { RunJournal, ToolEffects } from '../../core/journal.js';
import { runWithToolContext, tryToolContext } from '../../core/tool-context.js';
import { type ModelVisibleError, modelVisibleError } from '../../tools/errors.js';
import { canonicalJson } from '../../tools/ledger.js';

/**
 * What runners share to make a framework's native tools and model calls durable through the run's
 * journal (`ToolContext.journal`): the effects a native tool declares, the guard around one call,
 * and the hash that keys a model request.
 */

const declared = new WeakMap<object, ToolEffects>();

/**
 * Declares what running a native tool again does (MCP's `readOnlyHint` / `idempotentHint`):
 * a read-only or idempotent tool is simply run again on replay when its earlier call's outcome
 * is unknown; any other is not (the model gets `tool-outcome-unknown`). Returns the tool.
 */
export function withToolEffects<T extends object>(tool: T, effects: ToolEffects): T {
  declared.set(tool, effects);
  return tool;
}

/** The effects declared for a native tool, if any. */
export function toolEffects(tool: object): ToolEffects | undefined {
  return declared.get(tool);
}

/** The run's journal, when the runtime opened one for this turn. */
export function currentJournal(): RunJournal | undefined {
  return tryToolContext()?.journal;
}

/**
 * Runs one native tool call at most once across the run's attempts: a recorded outcome is
 * returned without running, an unfinished earlier call throws `ToolOutcomeUnknown` (unless the
 * tool is read-only or idempotent). The tool runs with `ctx.callId` and `ctx.idempotencyKey`
 * bound. Without a journal (or a call id) it only runs.
 */
export function guardToolCall<T>(
  call: {
    readonly callId: string | undefined;
    readonly tool: string;
    readonly effects?: ToolEffects;
    /** The journal's key for this execution when it is not the call id (a resumed call). */
    readonly entry?: string;
  },
  run: () => Promise<T>,
): Promise<T> {
  const ctx = tryToolContext();
  const journal = ctx?.journal;
  const { callId } = call;
  if (!ctx || !journal || !callId) return run();
  const bound = { ...ctx, callId, idempotencyKey: journal.idempotencyKey(callId) };
  const effects = call.effects ? { effects: call.effects } : {};
  return journal.tool({ callId: call.entry ?? callId, tool: call.tool, ...effects }, () =>
    runWithToolContext(bound, run),
  );
}

/** The model-visible error for a call whose outcome is unknown; other errors are not ours. */
export function unknownOutcome(err: unknown): ModelVisibleError | undefined {
  return err instanceof ToolOutcomeUnknown ? modelVisibleError(err) : undefined;
}

/** A model request's journal key: sha256 of the canonical JSON of what determines the answer. */
export function requestKey(scope: string, request: unknown): string {
  return `${scope}:${createHash('sha256').update(canonicalJson(request)).digest('hex')}`;
}

/** A value as JSON (what a journal entry holds): dates become strings, functions vanish. */
export function toJson<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value ?? null)) as T;
}
