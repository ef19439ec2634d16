import { type Agent, BeforeToolCallEvent, type JSONValue } from '@strands-agents/sdk';
import { tryToolContext } from '../../core/tool-context.js';
import { asksToRunAgain, effectsOf } from '../../tools/guard.js';
import { needsApproval } from './tool-journal.js';

/** The name of the interrupts our approval gate raises. */
export const APPROVAL_INTERRUPT = 'agent-kernel:approval';

/** What a person decided, as the gate's interrupt response. */
export interface GateResponse {
  readonly status: 'approved' | 'denied';
  readonly message?: string;
  readonly arguments?: unknown;
}

/** What the gate's interrupt carries, for the runner to report as an interruption. */
export interface GateReason {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly arguments: unknown;
}

/**
 * The approval gate, a `BeforeToolCallEvent` hook: a call of a `withApproval` tool (or a
 * `confirm` ToolSpec) raises a Strands interrupt, so the run pauses before the tool runs; on
 * resume the interrupt returns the decision: denied, the call is cancelled with the reason (the
 * model reads it); approved with arguments, the call runs with them. A call an earlier attempt
 * of the run already started passed the gate then and is not asked again, unless its tool
 * declares `onUnknownOutcome: 'pause'` and its outcome is unknown (then a person decides
 * whether it runs again).
 */
export function addApprovalGate(agent: Agent): void {
  agent.addHook(BeforeToolCallEvent, (event) => {
    const { toolUse, tool } = event;
    const rerun = asksToRunAgain(toolUse.toolUseId, tool ? effectsOf(tool) : undefined);
    if (!rerun && !needsApproval(tool)) return;
    const journal = tryToolContext()?.journal;
    if (!rerun && journal && journal.callState(toolUse.toolUseId) !== 'none') return;
    const reason: GateReason = {
      toolUseId: toolUse.toolUseId,
      toolName: toolUse.name,
      arguments: toolUse.input,
    };
    const response = event.interrupt<GateResponse>({
      name: APPROVAL_INTERRUPT,
      reason: reason as unknown as JSONValue,
    });
    if (response.status !== 'approved') {
      event.cancel = response.message
        ? `The call was not approved: ${response.message}`
        : 'The call was not approved.';
    } else if (response.arguments !== undefined) {
      event.toolUse = { ...toolUse, input: response.arguments as JSONValue };
    }
  });
}
