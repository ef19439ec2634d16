import { type ToolApproval, tryToolContext } from '../core/tool-context.js';
import { ApprovalPending } from './errors.js';

/** What an approver is asked: one call, with the validated arguments. */
export interface ApprovalRequest {
  readonly tool: string;
  readonly callId: string;
  readonly args: unknown;
  readonly runId: string;
  readonly sessionId: string;
  readonly agent: string;
  readonly principal?: string;
}

export type ApprovalDecision = ToolApproval;

/** Decides calls of tools marked `confirm`: approve, deny, or approve with edited arguments. */
export interface ApprovalPort {
  decide(request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision>;
}

export const approveAll: ApprovalPort = { decide: () => ({ status: 'approved' }) };

export const denyAll: ApprovalPort = {
  decide: () => ({ status: 'denied', message: 'no approver is configured' }),
};

/**
 * The approval port for frameworks without a native gate: a call already decided on resume
 * (`ctx.decisions`, set by `Runtime.resume`) gets that decision; any other call throws
 * `ApprovalPending`, which the runner turns into a paused run backed by the paused-run store.
 */
export const pauseForApproval: ApprovalPort = {
  decide(request) {
    const decided = tryToolContext()?.decisions?.[request.callId];
    if (decided) return decided;
    throw new ApprovalPending(request.tool, request.callId, request.args);
  },
};

export function approvalFrom(
  decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
): ApprovalPort {
  return { decide };
}
