import * as z from 'zod/mini';
import { lazySchema } from '../../core/lazy-schema.js';

/**
 * Fair use per principal: the counters the front door checks before it accepts a run or a
 * WebSocket connection, and the usage a principal reads back (`GET /usage`). lib/stores
 * implements it in memory and in DynamoDB (atomic conditional updates on one item per
 * principal). Times are epoch milliseconds; a day is a UTC calendar day.
 */

/** Limits of one principal; an absent limit is no limit. */
export const QuotaLimitsSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    /** Open WebSocket connections. */
    connections: z.optional(z.number().check(z.int(), z.nonnegative())),
    /** Runs (and resumes) accepted and not yet ended. */
    runsInFlight: z.optional(z.number().check(z.int(), z.nonnegative())),
    /** Runs accepted in the current UTC minute. */
    runsPerMinute: z.optional(z.number().check(z.int(), z.nonnegative())),
    /** Model tokens (input + output) of the current UTC day. */
    tokensPerDay: z.optional(z.number().check(z.int(), z.nonnegative())),
  }),
);
export type QuotaLimits = z.infer<typeof QuotaLimitsSchema>;
export type QuotaName = keyof QuotaLimits;

/** What admission answers: admitted, or the quota that refused and when to try again (seconds). */
export type Admission =
  | { readonly ok: true }
  | { readonly ok: false; readonly quota: QuotaName; readonly retryAfter: number };

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface DayUsage extends TokenUsage {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  /** Runs that ended that day (an attempt given back for a retry is not one). */
  readonly runs: number;
}

/** One principal's counters now, and its usage per day (newest first): its cost attribution. */
export interface PrincipalUsage {
  readonly runsInFlight: number;
  readonly connections: number;
  readonly runsThisMinute: number;
  readonly tokensToday: number;
  readonly days: readonly DayUsage[];
}

export interface QuotaStore {
  /**
   * Admits run `runId` of `principal` atomically against `limits`: a lease in its in-flight set
   * (expiring at `leaseUntil`), one more run this minute, today's tokens under the limit.
   * Expired leases (a run whose end was never reported) are repaired when they would refuse.
   */
  admitRun(
    principal: string,
    runId: string,
    limits: QuotaLimits,
    leaseUntil: number,
  ): Promise<Admission>;
  /** The run ended (or one attempt of it did): tokens added to today; `release` drops its lease. */
  endRun(
    principal: string,
    runId: string,
    usage: TokenUsage,
    options: { release: boolean },
  ): Promise<void>;
  /** Admits WebSocket connection `connectionId` against `limit` (a lease until `leaseUntil`). */
  openConnection(
    principal: string,
    connectionId: string,
    limit: number | undefined,
    leaseUntil: number,
  ): Promise<Admission>;
  closeConnection(principal: string, connectionId: string): Promise<void>;
  usage(principal: string, options?: { days?: number }): Promise<PrincipalUsage>;
  /** The principal's override of the stack's limits (set by an operator), if any. */
  override(principal: string): Promise<QuotaLimits | undefined>;
  setOverride(principal: string, limits: QuotaLimits | undefined): Promise<void>;
}

/** UTC calendar day of `ms`, `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch minute of `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000);
}

/** Whole seconds until the next UTC minute (at least 1). */
export function secondsToNextMinute(ms: number): number {
  return Math.max(1, Math.ceil(((minuteOf(ms) + 1) * 60_000 - ms) / 1000));
}

/** Whole seconds until the next UTC midnight (at least 1). */
export function secondsToNextDay(ms: number): number {
  const next = Date.UTC(
    new Date(ms).getUTCFullYear(),
    new Date(ms).getUTCMonth(),
    new Date(ms).getUTCDate() + 1,
  );
  return Math.max(1, Math.ceil((next - ms) / 1000));
}

/** A refusal of the in-flight quota: a run ends when it ends; poll again shortly. */
export const IN_FLIGHT_RETRY_SECONDS = 2;
/** A refusal of the connections quota: another of the principal's sockets must close first. */
export const CONNECTIONS_RETRY_SECONDS = 5;
