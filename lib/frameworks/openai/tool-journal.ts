import type { Model } from '@openai/agents';
import {
  asksToRunAgain,
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
} from '../../tools/guard.js';
import { journaledModel } from './model-journal.js';
import type { NativeFunctionTool, NativeOpenAIAgent } from './native.js';
import { isExecutorTool, probeFailures } from './tool-tracing.js';

const GUARDED = Symbol.for('agent-kernel.journal-guarded-tool');
const JOURNALED = Symbol.for('agent-kernel.journaled-model');

type Invoke = NativeFunctionTool['invoke'];
type Approval = NativeFunctionTool['needsApproval'];
type Journaled = Model & { [JOURNALED]?: true };

/**
 * Puts every native `tool()` an agent can reach (its own, its handoffs') behind the run's
 * journal: each call runs at most once across attempts, keyed by the SDK's
 * `details.toolCall.callId`, with `ctx.idempotencyKey` bound; ToolSpec tools are skipped (the
 * executor guards them). An agent's `Model` instance is journaled too (a model name goes through
 * the runner's provider, journaled already): without model replay a retried run would get new
 * call ids and the guard could not recognise its calls. Tools and models are wrapped in place,
 * once; outside a journaled run the wrappers only forward.
 */
export function guardNativeTools(agent: NativeOpenAIAgent): void {
  const seen = new Set<object>();
  const visit = (current: NativeOpenAIAgent) => {
    if (seen.has(current)) return;
    seen.add(current);
    if (typeof current.model === 'object' && !(current.model as Journaled)[JOURNALED]) {
      current.model = Object.assign(journaledModel(current.model), { [JOURNALED]: true });
    }
    for (const tool of current.tools) {
      if (tool.type === 'function' && !isExecutorTool(tool)) guard(tool);
    }
    for (const handoff of current.handoffs) {
      visit('agent' in handoff && handoff.agent ? handoff.agent : (handoff as NativeOpenAIAgent));
    }
  };
  visit(agent);
}

function guard(tool: NativeFunctionTool): void {
  const marked = tool as NativeFunctionTool & { [GUARDED]?: true };
  if (marked[GUARDED]) return;
  const original: Invoke = probeFailures(tool.invoke.bind(tool));
  const approval: Approval = tool.needsApproval.bind(tool);
  marked[GUARDED] = true;
  // A `pause` tool's call left unfinished by an earlier attempt waits at the SDK's own gate.
  tool.needsApproval = async (runContext, input, callId) =>
    asksToRunAgain(callId, effectsOf(tool)) || approval(runContext, input, callId);
  tool.invoke = async (runContext, input, details) => {
    const callId = (details as { toolCall?: { callId?: string } } | undefined)?.toolCall?.callId;
    try {
      return await guardNativeTool({ callId, tool: tool.name, ...optionalEffects(tool) }, () =>
        original(runContext, input, details),
      );
    } catch (err) {
      // Not run again: the model reads why (a typed error, as a ToolSpec tool's failure).
      const visible = unknownOutcomeError(err);
      if (visible) return visible;
      throw err;
    }
  };
}

function optionalEffects(tool: object) {
  const effects = effectsOf(tool);
  return effects ? { effects } : {};
}
