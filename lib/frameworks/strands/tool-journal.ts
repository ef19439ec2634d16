import {
  type Agent,
  type AgentStreamEvent,
  type ExecuteToolContext,
  type ExecuteToolResult,
  ExecuteToolStage,
  JsonBlock,
  type MiddlewareNext,
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
import { NativeToolSpan, tracingActive } from '../base/native-tool-span.js';

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

type Stage = ExecuteToolContext;
type Next = MiddlewareNext<ExecuteToolContext, ExecuteToolResult, AgentStreamEvent>;
type Steps = AsyncGenerator<AgentStreamEvent, ExecuteToolResult, undefined>;

/** Strands' InterruptError (not exported): a tool's `context.interrupt()`, a pause. */
const isInterrupt = (error: unknown) => (error as Error | undefined)?.name === 'InterruptError';

/**
 * Native tools run at most once across the run's attempts: an `ExecuteToolStage` middleware puts
 * each execution under `guardNativeTool`, keyed by Strands' `toolUseId` with
 * `ctx.idempotencyKey` bound; a recorded outcome is returned without running, an unfinished one
 * reaches the model as `tool-outcome-unknown`. In a traced run each native call is a `tool`
 * span: Strands makes a throw a `status: 'error'` result, which the span records as the failure
 * (its `error`). ToolSpec tools pass through (the executor guards and traces them), and so does
 * every call with neither a journal nor tracing.
 */
export function guardTools(agent: Agent): void {
  agent.addMiddleware(ExecuteToolStage, async function* (ctx, next) {
    const tool = ctx.tool;
    const journaled = !!tryToolContext()?.journal;
    if (!tool || executorTools.has(tool) || !(journaled || tracingActive())) {
      return yield* next(ctx);
    }
    const { toolUseId, name, input } = ctx.toolUse;
    const span = new NativeToolSpan({ tool: name, callId: toolUseId, input });
    try {
      const out = journaled
        ? yield* journaledCall(ctx, next, span)
        : yield* stepped(ctx, next, span);
      const { result } = out;
      if (result.status === 'error' && !isInterrupt(result.error)) {
        span.fail(result.error ?? new Error('The tool returned an error result.'));
      }
      span.succeed(result.toJSON());
      return out;
    } catch (err) {
      span.threw(err, isInterrupt);
      throw err;
    }
  });
}

/** The call's steps each run under its span, so spans the tool opens nest below it. */
async function* stepped(ctx: Stage, next: Next, span: NativeToolSpan): Steps {
  const run = next(ctx);
  let step = await span.within(() => run.next());
  while (!step.done) {
    yield step.value;
    step = await span.within(() => run.next());
  }
  return step.value;
}

async function* journaledCall(ctx: Stage, next: Next, span: NativeToolSpan): Steps {
  const { toolUseId, name } = ctx.toolUse;
  const effects = effectsOf(ctx.tool as object);
  const entry = resumedEntry(ctx.agent, toolUseId);
  // The tool's progress events wait for its outcome: the guard takes one async function.
  const events: AgentStreamEvent[] = [];
  let result: ToolResultBlock;
  try {
    const recorded = await span.within(() =>
      guardNativeTool<Recorded>(
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
      ),
    );
    result = ToolResultBlock.fromJSON(recorded);
  } catch (err) {
    // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
    const visible = unknownOutcomeError(err);
    if (!visible) throw err;
    span.fail(err);
    result = new ToolResultBlock({
      toolUseId,
      status: 'error',
      content: [new JsonBlock({ json: visible as never })],
    });
  }
  yield* events;
  return { result };
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
