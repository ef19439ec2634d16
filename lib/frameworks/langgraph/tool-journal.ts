import { StructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { isGraphInterrupt } from '@langchain/langgraph';
import type { ToolEffects } from '../../core/journal.js';
import { tryToolContext } from '../../core/tool-context.js';
import { ApprovalPending } from '../../tools/errors.js';
import {
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
  unknownOutcomeId,
} from '../../tools/guard.js';
import { traceNativeTool, tracingActive } from '../base/native-tool-span.js';
import { UnguardedToolCall } from './errors.js';
import { rerunInterrupt, SpecTool } from './tools.js';

const GUARDED = Symbol.for('agent-kernel.journal-guarded-tool');
/** What the journal records for a call that paused (`interrupt()`) instead of finishing. */
const INTERRUPTED = { 'agent-kernel': 'interrupted' } as const;

type CallFn = (input: unknown, runManager: unknown, config: unknown) => Promise<unknown>;
type Guardable = StructuredToolInterface & { _call?: CallFn; [GUARDED]?: true };

/**
 * Puts the native LangChain tools of a graph's tool nodes (`ToolNode.tools`, subgraphs too), and
 * any other tool the run calls (from a custom node), behind the run's journal: each call runs at most once across attempts, keyed by the model's
 * tool call id (`config.toolCall.id`), with `ctx.idempotencyKey` bound. ToolSpec tools
 * (`SpecTool`) are skipped: the executor guards them. A tool's `_call` is wrapped in place, once;
 * in a traced run each call is a `tool` span. A call without a tool call id is refused
 * (`UnguardedToolCall`) unless the tool is declared read-only.
 */
export function guardGraphTools(graph: unknown, seen = new Set<unknown>()): void {
  guardEveryToolCall();
  if (!graph || typeof graph !== 'object' || seen.has(graph)) return;
  seen.add(graph);
  const nodes = (graph as { nodes?: Record<string, { bound?: unknown }> }).nodes ?? {};
  for (const node of Object.values(nodes)) {
    const bound = node?.bound as { tools?: unknown; nodes?: unknown } | undefined;
    if (Array.isArray(bound?.tools)) for (const tool of bound.tools) guard(tool as Guardable);
    if (bound?.nodes) guardGraphTools(bound, seen);
  }
}

let everyCall = false;

/**
 * A tool a custom node calls (not a ToolNode) is not in the graph's nodes: the tool object
 * itself is guarded on its first call in a journaled run, through LangChain's
 * `StructuredTool.prototype.call` (wrapped once; outside a journaled run it only forwards).
 */
function guardEveryToolCall(): void {
  if (everyCall) return;
  everyCall = true;
  const proto = StructuredTool.prototype as unknown as { call: (...args: unknown[]) => unknown };
  const call = proto.call;
  proto.call = function (this: Guardable, ...args: unknown[]) {
    if (tryToolContext()?.journal || tracingActive()) guard(this);
    return call.apply(this, args);
  };
}

function guard(tool: Guardable): void {
  if (tool instanceof SpecTool || tool[GUARDED] || typeof tool._call !== 'function') return;
  const original = tool._call.bind(tool);
  tool[GUARDED] = true;
  tool._call = (input, runManager, config) => {
    const callId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
    if (!tracingActive())
      return journaledCall(tool, callId, input, () => original(input, runManager, config));
    // A ToolNode turns a throw into an error ToolMessage: the span is the failure's record.
    return traceNativeTool(
      { tool: tool.name, callId, input },
      (fail) => journaledCall(tool, callId, input, () => original(input, runManager, config), fail),
      { isPause: isGraphInterrupt },
    );
  };
}

async function journaledCall(
  tool: Guardable,
  callId: string | undefined,
  input: unknown,
  run: () => Promise<unknown>,
  fail: (error: unknown) => void = () => {},
): Promise<unknown> {
  // No call id (a custom node's `tool.invoke(args)`): nothing to recognise it by on a retry.
  if (!callId && tryToolContext()?.journal && !effectsOf(tool)?.readOnly) {
    throw new UnguardedToolCall(tool.name);
  }
  try {
    return await guardedCall(tool, callId, run);
  } catch (err) {
    // The guard asks for a person; LangGraph pauses through its own interrupt().
    if (
      err instanceof ApprovalPending &&
      callId &&
      err.interruption.id === unknownOutcomeId(callId)
    ) {
      return askToRunAgain(tool, callId, input, run);
    }
    // Resumed with the person's "no" (the guard read it): the model reads the denial.
    const decision = callId ? tryToolContext()?.decisions?.[unknownOutcomeId(callId)] : undefined;
    if (decision?.status === 'denied') return denial(decision.message);
    // Not run again: the model reads why (JSON in the ToolMessage, as a ToolSpec tool's error).
    const visible = unknownOutcomeError(err);
    if (!visible) throw err;
    fail(err);
    return JSON.stringify(visible);
  }
}

/**
 * A tool that pauses with `interrupt()` runs again when the graph resumes (LangGraph re-runs the
 * node). Its paused call is recorded as interrupted, not failed, and the resumed call is
 * journaled under the next key (`<callId>#1`, …): deterministic, so a resume sent again finds it.
 */
async function guardedCall(
  tool: Guardable,
  callId: string | undefined,
  run: () => Promise<unknown>,
  effects: ToolEffects | undefined = effectsOf(tool),
): Promise<unknown> {
  for (let level = 0; ; level++) {
    // The tool sees the call id and idempotency key of the call; only the journal entry differs.
    const entry = callId && level > 0 ? `${callId}#${level}` : callId;
    let interrupted: unknown;
    const result = await guardNativeTool(
      { callId, tool: tool.name, ...(entry ? { entry } : {}), ...(effects ? { effects } : {}) },
      async () => {
        try {
          return await run();
        } catch (err) {
          if (!isGraphInterrupt(err)) throw err;
          interrupted = err;
          return INTERRUPTED;
        }
      },
    );
    if (interrupted) throw interrupted;
    if (!isInterrupted(result)) return result;
  }
}

/**
 * A tool declared `onUnknownOutcome: 'pause'` whose earlier call never finished: the run pauses
 * with a tool-approval interruption for that call; approved, it runs again (same key), denied,
 * the model reads why. Thrown outside the journal guard, so the pause itself is not recorded.
 */
async function askToRunAgain(
  tool: Guardable,
  callId: string,
  input: unknown,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const decision = rerunInterrupt(callId, tool.name, input);
  if (decision?.status !== 'approved') return denial(decision?.message);
  return guardedCall(tool, callId, run, { ...effectsOf(tool), idempotent: true });
}

function denial(message = 'A person decided not to run the call again.'): string {
  return JSON.stringify({ error: { kind: 'approval-denied', message } });
}

function isInterrupted(value: unknown): boolean {
  return (
    (value as Record<string, unknown> | null)?.['agent-kernel'] === INTERRUPTED['agent-kernel']
  );
}
