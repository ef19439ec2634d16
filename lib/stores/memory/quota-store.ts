import { checkQuotaLimits } from '../../app/ports/quota-limits-check.js';
import {
  type Admission,
  CONNECTIONS_RETRY_SECONDS,
  type DayUsage,
  dayOf,
  IN_FLIGHT_RETRY_SECONDS,
  minuteOf,
  type PrincipalUsage,
  type QuotaLimits,
  type QuotaStore,
  secondsToNextDay,
  secondsToNextMinute,
  type TokenUsage,
} from '../../app/ports/quotas.js';
import { InvalidRecord } from '../../core/stores.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

interface Counters {
  runs: Map<string, number>;
  connections: Map<string, number>;
  minute: number;
  runsThisMinute: number;
  days: Map<string, { inputTokens: number; outputTokens: number; runs: number }>;
  limits?: QuotaLimits;
}

/**
 * Fair-use counters in process memory (tests, a single process). Every method runs without an
 * `await` between its read and its write, so concurrent calls are atomic as DynamoDB's are.
 */
export class InMemoryQuotaStore implements QuotaStore {
  readonly #principals = new Map<string, Counters>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async admitRun(
    principal: string,
    runId: string,
    limits: QuotaLimits,
    leaseUntil: number,
  ): Promise<Admission> {
    const now = this.#clock.now();
    const c = this.#of(principal);
    dropExpired(c.runs, now);
    if (c.minute !== minuteOf(now)) {
      c.minute = minuteOf(now);
      c.runsThisMinute = 0;
    }
    const tokens = total(c.days.get(dayOf(now)));
    if (limits.tokensPerDay !== undefined && tokens >= limits.tokensPerDay) {
      return { ok: false, quota: 'tokensPerDay', retryAfter: secondsToNextDay(now) };
    }
    if (limits.runsInFlight !== undefined && c.runs.size >= limits.runsInFlight) {
      return { ok: false, quota: 'runsInFlight', retryAfter: IN_FLIGHT_RETRY_SECONDS };
    }
    if (limits.runsPerMinute !== undefined && c.runsThisMinute >= limits.runsPerMinute) {
      return { ok: false, quota: 'runsPerMinute', retryAfter: secondsToNextMinute(now) };
    }
    c.runs.set(runId, leaseUntil);
    c.runsThisMinute += 1;
    return { ok: true };
  }

  async endRun(
    principal: string,
    runId: string,
    usage: TokenUsage,
    options: { release: boolean },
  ): Promise<void> {
    const c = this.#of(principal);
    if (options.release) c.runs.delete(runId);
    if (!options.release && usage.inputTokens + usage.outputTokens === 0) return;
    const day = dayOf(this.#clock.now());
    const entry = c.days.get(day) ?? { inputTokens: 0, outputTokens: 0, runs: 0 };
    c.days.set(day, {
      inputTokens: entry.inputTokens + usage.inputTokens,
      outputTokens: entry.outputTokens + usage.outputTokens,
      runs: entry.runs + (options.release ? 1 : 0),
    });
  }

  async openConnection(
    principal: string,
    connectionId: string,
    limit: number | undefined,
    leaseUntil: number,
  ): Promise<Admission> {
    const c = this.#of(principal);
    dropExpired(c.connections, this.#clock.now());
    if (limit !== undefined && c.connections.size >= limit) {
      return { ok: false, quota: 'connections', retryAfter: CONNECTIONS_RETRY_SECONDS };
    }
    c.connections.set(connectionId, leaseUntil);
    return { ok: true };
  }

  async closeConnection(principal: string, connectionId: string): Promise<void> {
    this.#principals.get(principal)?.connections.delete(connectionId);
  }

  async usage(principal: string, options: { days?: number } = {}): Promise<PrincipalUsage> {
    const now = this.#clock.now();
    const c = this.#of(principal);
    dropExpired(c.runs, now);
    dropExpired(c.connections, now);
    const days: DayUsage[] = [...c.days.entries()]
      .map(([day, u]) => ({ day, ...u }))
      .sort((a, b) => b.day.localeCompare(a.day))
      .slice(0, options.days ?? 31);
    return {
      runsInFlight: c.runs.size,
      connections: c.connections.size,
      runsThisMinute: c.minute === minuteOf(now) ? c.runsThisMinute : 0,
      tokensToday: total(c.days.get(dayOf(now))),
      days,
    };
  }

  async override(principal: string): Promise<QuotaLimits | undefined> {
    const limits = this.#principals.get(principal)?.limits;
    return limits ? { ...limits } : undefined;
  }

  async setOverride(principal: string, limits: QuotaLimits | undefined): Promise<void> {
    const c = this.#of(principal);
    if (limits === undefined) {
      delete c.limits;
      return;
    }
    const parsed = checkQuotaLimits(limits);
    if (parsed.message !== undefined) throw new InvalidRecord('quota override', parsed.message);
    c.limits = parsed.data;
  }

  #of(principal: string): Counters {
    let c = this.#principals.get(principal);
    if (!c) {
      c = {
        runs: new Map(),
        connections: new Map(),
        minute: 0,
        runsThisMinute: 0,
        days: new Map(),
      };
      this.#principals.set(principal, c);
    }
    return c;
  }
}

function dropExpired(leases: Map<string, number>, now: number): void {
  for (const [id, until] of leases) if (until <= now) leases.delete(id);
}

function total(usage: TokenUsage | undefined): number {
  return usage ? usage.inputTokens + usage.outputTokens : 0;
}
