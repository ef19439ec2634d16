/** A paused run waiting for decisions, as the pending-approval index keeps it. */
export interface PendingApprovalEntry {
  sessionId: string;
  runId: string;
  /** The paused run's `createdAt`: an entry of an earlier pause of the same run is skipped. */
  createdAt: number;
  /** The session's owner when it paused (absent for a run of an ownerless session). */
  owner?: string;
}

/** Where a page starts: just past this entry (oldest first). */
export interface PendingApprovalPosition {
  createdAt: number;
  sessionId: string;
  runId: string;
}

/**
 * The paused runs waiting for a person, oldest first: all of them (an approver's inbox) or one
 * owner's. The paused-run store writes an entry before the run it names and removes it with the
 * run, so none is missing; an entry that outlived its run (a failed delete, an expiry, a run paused
 * again) is skipped by the reader (lib/app/approvals-inbox.ts). A claim (`resuming`) keeps it.
 */
export interface PendingApprovalIndex {
  pending(options: {
    owner?: string;
    limit: number;
    after?: PendingApprovalPosition;
  }): Promise<{ entries: PendingApprovalEntry[]; more: boolean }>;
}

/** Entries in index order: creation, then session id, then run id. */
export function comparePending(a: PendingApprovalPosition, b: PendingApprovalPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}
