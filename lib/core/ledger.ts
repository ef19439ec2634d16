import * as z from 'zod';

/**
 * The tool ledger: one entry per tool call, whatever the framework. An audit trail, so it records
 * a hash of the arguments, never the arguments themselves (they may hold secrets).
 */
export const LedgerEntrySchema = z.strictObject({
  sessionId: z.string(),
  runId: z.string(),
  callId: z.string(),
  tool: z.string(),
  /** sha256 of the canonical JSON of the validated arguments. */
  argsHash: z.string(),
  outcome: z.enum([
    'ok',
    'error',
    'invalid-args',
    'denied',
    'timeout',
    'cancelled',
    'limit',
    'cached',
    // Waiting for a human: the call is entered again when the run resumes.
    'paused',
  ]),
  /** Model-visible error kind when the outcome is not ok. */
  errorKind: z.string().optional(),
  approval: z.enum(['not-required', 'approved', 'approved-edited', 'denied']).optional(),
  attempts: z.number().int().positive(),
  durationMs: z.number().nonnegative(),
  startedAt: z.number().int(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** Port implemented in memory (lib/tools) and in DynamoDB (lib/stores/dynamodb). */
export interface ToolLedger {
  record(entry: LedgerEntry): Promise<void>;
  /** Entries of a session (optionally one run), oldest first. */
  list(sessionId: string, runId?: string): Promise<LedgerEntry[]>;
}
