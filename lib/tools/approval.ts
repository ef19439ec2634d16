import type { ToolApproval } from '../core/tool-context.js';

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

export function approvalFrom(
  decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
): ApprovalPort {
  return { decide };
}
