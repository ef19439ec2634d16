import {
  type Agent,
  type AgentStreamEvent,
  ExecuteToolStage,
  JsonBlock,
  ToolResultBlock,
  type ToolResultBlockData,
} from '@strands-agents/sdk';
import type { ToolEffects } from '../../core/journal.js';
import { tryToolContext } from '../../core/tool-context.js';
import {
  declareEffects,
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
} from '../../tools/guard.js';

/** Tools exported from a ToolSpec: the executor guards their calls. */
const executorTools = new WeakSet<object>();
/** Tools a person approves before each call (the runner's gate, see gate.ts). */
const approvalTools = new WeakSet<object>();

/**
 * Marks a ToolSpec's export; its declared effects are the spec's (`effectsOf`), so the approval
 * gate asks before a `pause` call an earlier attempt left unfinished runs again.
 */
export function markExecutorTool<T extends object>(tool: T, effects?: ToolEffects): T {
  executorTools.add(tool);
  return effects ? declareEffects(tool, effects) : tool;
}

/**
 * Marks a Strands tool so that every call of it waits for a person's decision: the run pauses
 * (a Strands interrupt at `BeforeToolCallEvent`), and `Runtime.resume` approves, denies or
 * edits the arguments. Returns the tool: `withApproval(tool({...}))`.
 */
export function withApproval<T extends object>(tool: T): T {
  approvalTools.add(tool);
  return tool;
}

export function needsApproval(tool: object | undefined): boolean {
  return tool !== undefined && approvalTools.has(tool);
}

type Recorded = { toolResult: ToolResultBlockData };

/**
 * Native tools run at most once across the run's attempts: an `ExecuteToolStage` middleware puts
 * each execution under `guardNativeTool`, keyed by Strands' `toolUseId` with
 * `ctx.idempotencyKey` bound; a recorded outcome is returned without running, an unfinished one
 * reaches the model as `tool-outcome-unknown`. ToolSpec tools pass through (the executor guards
 * them), and so does every call when the run has no journal.
 */
export function guardTools(agent: Agent): void {
  agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
    const tool = ctx.tool;
    if (!tryToolContext()?.journal || !tool || executorTools.has(tool)) return yield* next(ctx);
    const { toolUseId, name } = ctx.toolUse;
    const effects = effectsOf(tool);
    const entry = resumedEntry(ctx.agent, toolUseId);
    // The tool's progress events wait for its outcome: the guard takes one async function.
    const events: AgentStreamEvent[] = [];
    let result: ToolResultBlock;
    try {
      const recorded = await guardNativeTool<Recorded>(
        {
          callId: toolUseId,
          tool: name,
          ...(effects ? { effects } : {}),
          ...(entry ? { entry } : {}),
        },
        async () => {
          const run = next(ctx);
          let step = await run.next();
          while (!step.done) {
            events.push(step.value);
            step = await run.next();
          }
          return step.value.result.toJSON() as Recorded;
        },
      );
      result = ToolResultBlock.fromJSON(recorded);
    } catch (err) {
      // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
      const visible = unknownOutcomeError(err);
      if (!visible) throw err;
      result = new ToolResultBlock({
        toolUseId,
        status: 'error',
        content: [new JsonBlock({ json: visible as never })],
      });
    }
    yield* events;
    return { result };
  });
}

/**
 * A tool that called `context.interrupt()` ended its first execution there (recorded as that
 * failure); resumed with the answer, Strands runs it again from the start: that execution is
 * journaled as `<toolUseId>#<answers so far>`, so it runs (once) rather than replaying the pause.
 */
function resumedEntry(agent: unknown, toolUseId: string): string | undefined {
  const state = (agent as Partial<Agent> | undefined)?._interruptState;
  const answered = Object.values(state?.interrupts ?? {}).filter(
    (i) => i.id.startsWith(`tool:${toolUseId}:`) && i.response !== undefined,
  ).length;
  return answered > 0 ? `${toolUseId}#${answered}` : undefined;
}
