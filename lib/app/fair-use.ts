import { AgentKernelError } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import type { Reply } from '../core/requests.js';
import type {
  PrincipalUsage,
  QuotaLimits,
  QuotaName,
  QuotaStore,
  TokenUsage,
} from './ports/quotas.js';

/** A principal is over one of its limits: nothing ran or was stored; retry after `retryAfter` s. */
export class QuotaExceeded extends AgentKernelError {
  readonly quota: QuotaName;
  readonly retryAfter: number;

  constructor(quota: QuotaName, limit: number | undefined, retryAfter: number) {
    super(
      'quota-exceeded',
      `Quota ${quota} reached (limit ${limit ?? 0}); try again in ${retryAfter} s.`,
    );
    this.quota = quota;
    this.retryAfter = retryAfter;
  }
}

/** `{ retryAfter }` of an error that carries one (quota-exceeded), else nothing. */
export function retryAfterOf(err: unknown): { retryAfter?: number } {
  return err instanceof QuotaExceeded ? { retryAfter: err.retryAfter } : {};
}

export interface FairUseSettings {
  /** The stack's limits (CDK context → QUOTA_* variables); an override item replaces each. */
  readonly limits: QuotaLimits;
  /** How long a queued run counts in flight without reporting its end (queue wait + turn). */
  readonly queuedLeaseMs: number;
  /** A WebSocket connection's lease: API Gateway closes a connection after 2 h at most. */
  readonly connectionLeaseMs: number;
  /** How long a function keeps a principal's override before reading it again. */
  readonly overrideCacheMs?: number;
  /** Counts (EMF on AWS): `QuotaRefusals` by quota, `ModelTokens`, per principal as property. */
  readonly metric?: (name: string, value: number, fields: Record<string, string>) => void;
  readonly now?: () => number;
}

const SYNC_MARGIN_MS = 30_000;
const MAX_SYNC_MS = 15 * 60_000;

/**
 * Fair use per principal, as the front door applies it: admission of runs (in flight, per
 * minute, tokens per day) and WebSocket connections against the stack's limits or the
 * principal's override, token metering at each run's end, and the principal's own usage.
 * In-flight counts are leases: a run whose end never comes (a worker that died for good, a
 * sync turn whose function was killed) stops counting when its lease expires.
 */
export class FairUse {
  readonly #store: QuotaStore;
  readonly #settings: FairUseSettings;
  readonly #now: () => number;
  readonly #overrides = new Map<string, { limits: QuotaLimits | undefined; until: number }>();

  constructor(store: QuotaStore, settings: FairUseSettings) {
    this.#store = store;
    this.#settings = settings;
    this.#now = settings.now ?? Date.now;
  }

  /** The stack's limits with the principal's override applied. */
  async limitsOf(principal: string): Promise<QuotaLimits> {
    const now = this.#now();
    let cached = this.#overrides.get(principal);
    if (!cached || cached.until <= now) {
      const limits = await this.#store.override(principal);
      cached = { limits, until: now + (this.#settings.overrideCacheMs ?? 60_000) };
      this.#overrides.set(principal, cached);
    }
    return { ...this.#settings.limits, ...cached.limits };
  }

  /**
   * A queued run or resume: admitted before `accept` runs (it claims the session, records and
   * queues the job); its lease is dropped again when `accept` fails. The worker ends it.
   */
  async queued<T>(principal: string, leaseId: string, accept: () => Promise<T>): Promise<T> {
    await this.#admit(principal, leaseId, this.#now() + this.#settings.queuedLeaseMs);
    try {
      return await accept();
    } catch (err) {
      await this.#store
        .endRun(principal, leaseId, NO_TOKENS, { release: true })
        .catch(() => undefined);
      throw err;
    }
  }

  /** A turn run here (sync HTTP, invoke, SSE): admitted, run, metered and released. */
  async here(
    principal: string,
    leaseId: string,
    timeoutMs: number | undefined,
    turn: () => Promise<Reply>,
  ): Promise<Reply> {
    const leaseMs = (timeoutMs ?? MAX_SYNC_MS) + SYNC_MARGIN_MS;
    await this.#admit(principal, leaseId, this.#now() + leaseMs);
    let usage: TokenUsage = NO_TOKENS;
    try {
      const reply = await turn();
      usage = usageOfReply(reply);
      return reply;
    } finally {
      await this.ended(principal, leaseId, usage, { release: true }).catch(() => undefined);
    }
  }

  /** One attempt of a run ended: its tokens are added; `release` when the run is over. */
  async ended(
    principal: string,
    leaseId: string,
    usage: TokenUsage | undefined,
    options: { release: boolean },
  ): Promise<void> {
    const tokens = usage ?? NO_TOKENS;
    await this.#store.endRun(principal, leaseId, tokens, options);
    const total = tokens.inputTokens + tokens.outputTokens;
    if (total > 0) this.#settings.metric?.('ModelTokens', total, { principal });
  }

  async openConnection(principal: string, connectionId: string): Promise<void> {
    const limits = await this.limitsOf(principal);
    const until = this.#now() + this.#settings.connectionLeaseMs;
    const admission = await this.#store.openConnection(
      principal,
      connectionId,
      limits.connections,
      until,
    );
    if (!admission.ok) throw this.#refused(principal, admission, limits);
  }

  closeConnection(principal: string, connectionId: string): Promise<void> {
    return this.#store.closeConnection(principal, connectionId);
  }

  /** What `GET /usage` answers: the principal's limits, counters now and tokens per day. */
  async usage(
    principal: string,
  ): Promise<{ principal: string; limits: QuotaLimits } & PrincipalUsage> {
    const [limits, usage] = await Promise.all([
      this.limitsOf(principal),
      this.#store.usage(principal),
    ]);
    return { principal, limits, ...usage };
  }

  async #admit(principal: string, leaseId: string, leaseUntil: number): Promise<void> {
    const limits = await this.limitsOf(principal);
    const admission = await this.#store.admitRun(principal, leaseId, limits, leaseUntil);
    if (!admission.ok) throw this.#refused(principal, admission, limits);
  }

  #refused(
    principal: string,
    admission: { quota: QuotaName; retryAfter: number },
    limits: QuotaLimits,
  ): QuotaExceeded {
    this.#settings.metric?.('QuotaRefusals', 1, { quota: admission.quota, principal });
    return new QuotaExceeded(admission.quota, limits[admission.quota], admission.retryAfter);
  }
}

const NO_TOKENS: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** The id of a queued run's lease: the front door and the worker both derive it from the job. */
export function leaseIdOf(runId: string, requestId: string): string {
  return `${runId}:${requestId}`;
}

function usageOfReply(reply: Reply): TokenUsage {
  return reply.status === 'completed' && reply.usage ? reply.usage : NO_TOKENS;
}

/**
 * A turn's model tokens from its events: the sum of its steps' usage when the runner reports
 * it per step (a paused turn too), else the usage of its final reply.
 */
export class UsageTally {
  #steps: TokenUsage | undefined;
  #reply: TokenUsage | undefined;

  observe(event: StreamEvent): void {
    if (event.type === 'step-end' && event.usage) {
      this.#steps = {
        inputTokens: (this.#steps?.inputTokens ?? 0) + event.usage.inputTokens,
        outputTokens: (this.#steps?.outputTokens ?? 0) + event.usage.outputTokens,
      };
    }
    if (event.type === 'run-finished' && event.reply.usage) this.#reply = event.reply.usage;
  }

  get total(): TokenUsage {
    return this.#steps ?? this.#reply ?? NO_TOKENS;
  }
}
