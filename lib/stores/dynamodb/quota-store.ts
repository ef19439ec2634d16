import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
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
import { AgentKernelError } from '../../core/errors.js';
import { InvalidRecord } from '../../core/stores.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { keys } from './table.js';

/** Counters and usage history outlive a quiet principal this long (then TTL deletes them). */
const KEEP_SECONDS = 400 * 24 * 3600;
const ATTEMPTS = 5;

type Item = Record<string, unknown>;

/**
 * Fair-use counters in the one table, partition `QUOTA#<principal>`: `RUNS` (the in-flight
 * leases as a map runId → lease end, this minute's run count, today's tokens), `CONNS` (the open
 * connections' leases), `DAY#<yyyy-mm-dd>` (tokens and runs per day: the cost attribution),
 * `LIMITS` (an operator's override). Admission is one conditional UpdateItem on `RUNS` (its
 * condition holds every limit), so N concurrent requests against a limit of k admit exactly k.
 * Only a refusal reads the item: to tell which quota refused, to start a new minute, or to drop
 * leases that expired (a run whose end was never reported: the bounded repair).
 */
export class DynamoQuotaStore extends DynamoBase implements QuotaStore {
  async admitRun(
    principal: string,
    runId: string,
    limits: QuotaLimits,
    leaseUntil: number,
  ): Promise<Admission> {
    const key = { pk: keys.quota(principal), sk: keys.quotaRuns };
    let repaired = false;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const now = this.now();
      const m = minuteOf(now);
      if (await this.#tryAdmit(key, runId, limits, leaseUntil, m, dayOf(now), 'same-minute')) {
        return { ok: true };
      }
      const item = await this.#get(key);
      const refusal = refusalOf(item, limits, now);
      if (refusal) {
        const expired = expiredLeases(item, now);
        if (refusal.quota !== 'runsInFlight' || repaired || expired.length === 0) return refusal;
        // Leases of runs that never reported their end: dropped once, then admission again.
        repaired = true;
        await this.#dropLeases(key, expired);
        continue;
      }
      if (!item) {
        const created = {
          leases: { [runId]: leaseUntil },
          win: m,
          n: 1,
          day: dayOf(now),
          dayTokens: 0,
        };
        if (await this.#create(key, created)) return { ok: true };
        continue;
      }
      if (item.win !== m) {
        if (await this.#tryAdmit(key, runId, limits, leaseUntil, m, dayOf(now), 'new-minute')) {
          return { ok: true };
        }
      }
    }
    throw new AgentKernelError('store-throttled', 'The quota counters are contended; try again.');
  }

  async endRun(
    principal: string,
    runId: string,
    usage: TokenUsage,
    options: { release: boolean },
  ): Promise<void> {
    const now = this.now();
    const day = dayOf(now);
    const tokens = usage.inputTokens + usage.outputTokens;
    const key = { pk: keys.quota(principal), sk: keys.quotaRuns };
    if (tokens > 0 || options.release) await this.#addToDay(principal, day, usage, options);
    const remove = options.release ? ' REMOVE leases.#id' : '';
    const names = options.release ? { '#id': runId } : undefined;
    const steps: [string, string, Record<string, unknown>][] = [
      [`ADD dayTokens :t SET expiresAt = :ttl${remove}`, '#day = :d', { ':t': tokens }],
      [
        `SET #day = :d, dayTokens = :t, expiresAt = :ttl${remove}`,
        'attribute_exists(leases) AND (attribute_not_exists(#day) OR #day < :d)',
        { ':t': tokens },
      ],
    ];
    for (const [update, condition, values] of steps) {
      const applied = await this.#update(key, update, condition, {
        names: { ...names, '#day': 'day' },
        values: { ...values, ':d': day, ':ttl': this.expiry(KEEP_SECONDS) },
      });
      if (applied) return;
    }
    // A clock behind the item's day, or no item yet: the lease goes; the tokens are in DAY#.
    if (!options.release) return;
    await this.#update(key, 'REMOVE leases.#id', 'attribute_exists(leases)', {
      names: { '#id': runId },
    });
  }

  async openConnection(
    principal: string,
    connectionId: string,
    limit: number | undefined,
    leaseUntil: number,
  ): Promise<Admission> {
    const key = { pk: keys.quota(principal), sk: keys.quotaConnections };
    let repaired = false;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const now = this.now();
      const condition = limit === undefined ? 'attribute_exists(leases)' : 'size(leases) < :limit';
      const applied = await this.#update(
        key,
        'SET leases.#id = :lease, expiresAt = :ttl',
        condition,
        {
          names: { '#id': connectionId },
          values: {
            ':lease': leaseUntil,
            ':ttl': this.expiry(KEEP_SECONDS),
            ...(limit === undefined ? {} : { ':limit': limit }),
          },
        },
      );
      if (applied) return { ok: true };
      const item = await this.#get(key);
      if (!item) {
        if (limit !== undefined && limit < 1) return connectionsRefused();
        if (await this.#create(key, { leases: { [connectionId]: leaseUntil } }))
          return { ok: true };
        continue;
      }
      const expired = expiredLeases(item, now);
      const live = Object.keys(item.leases ?? {}).length - expired.length;
      if (limit !== undefined && live >= limit) return connectionsRefused();
      if (repaired) return connectionsRefused();
      repaired = true;
      await this.#dropLeases(key, expired);
    }
    throw new AgentKernelError('store-throttled', 'The quota counters are contended; try again.');
  }

  async closeConnection(principal: string, connectionId: string): Promise<void> {
    const key = { pk: keys.quota(principal), sk: keys.quotaConnections };
    await this.#update(key, 'REMOVE leases.#id', 'attribute_exists(leases)', {
      names: { '#id': connectionId },
    });
  }

  async usage(principal: string, options: { days?: number } = {}): Promise<PrincipalUsage> {
    const now = this.now();
    const pk = keys.quota(principal);
    const [runs, conns, page] = await Promise.all([
      this.#get({ pk, sk: keys.quotaRuns }),
      this.#get({ pk, sk: keys.quotaConnections }),
      this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.quotaDayPrefix },
          ScanIndexForward: false,
          Limit: options.days ?? 31,
        }),
      ),
    ]);
    const days: DayUsage[] = (page.Items ?? [])
      .filter((item) => !this.expired(item))
      .map((item) => ({
        day: String(item.sk).slice(keys.quotaDayPrefix.length),
        inputTokens: Number(item.inputTokens ?? 0),
        outputTokens: Number(item.outputTokens ?? 0),
        runs: Number(item.runs ?? 0),
      }));
    const today = days.find((d) => d.day === dayOf(now));
    return {
      runsInFlight: liveLeases(runs, now),
      connections: liveLeases(conns, now),
      runsThisMinute: runs?.win === minuteOf(now) ? Number(runs.n ?? 0) : 0,
      tokensToday: today ? today.inputTokens + today.outputTokens : 0,
      days,
    };
  }

  async override(principal: string): Promise<QuotaLimits | undefined> {
    const item = await this.#get({ pk: keys.quota(principal), sk: keys.quotaLimits });
    if (!item || this.expired(item)) return undefined;
    const { pk: _pk, sk: _sk, expiresAt: _ttl, ...rest } = item;
    const parsed = checkQuotaLimits(rest);
    if (parsed.message !== undefined) throw new InvalidRecord('quota override', parsed.message);
    return parsed.data;
  }

  async setOverride(principal: string, limits: QuotaLimits | undefined): Promise<void> {
    const key = { pk: keys.quota(principal), sk: keys.quotaLimits };
    if (limits === undefined) {
      await this.doc.send(new DeleteCommand({ TableName: this.table, Key: key }));
      return;
    }
    const parsed = checkQuotaLimits(limits);
    if (parsed.message !== undefined) throw new InvalidRecord('quota override', parsed.message);
    await this.doc.send(
      new PutCommand({ TableName: this.table, Item: { ...key, ...parsed.data } }),
    );
  }

  /** One conditional admission: this minute's count (or a new minute's first), every limit. */
  async #tryAdmit(
    key: { pk: string; sk: string },
    runId: string,
    limits: QuotaLimits,
    leaseUntil: number,
    minute: number,
    day: string,
    mode: 'same-minute' | 'new-minute',
  ): Promise<boolean> {
    const values: Record<string, unknown> = {
      ':lease': leaseUntil,
      ':m': minute,
      ':one': 1,
      ':ttl': this.expiry(KEEP_SECONDS),
    };
    const conditions = [mode === 'same-minute' ? 'win = :m' : 'win <> :m'];
    if (limits.runsInFlight !== undefined) {
      conditions.push('size(leases) < :k');
      values[':k'] = limits.runsInFlight;
    }
    if (limits.runsPerMinute !== undefined && mode === 'same-minute') {
      conditions.push('n < :r');
      values[':r'] = limits.runsPerMinute;
    }
    if (limits.tokensPerDay !== undefined) {
      conditions.push('(attribute_not_exists(#day) OR #day <> :d OR dayTokens < :t)');
      values[':d'] = day;
      values[':t'] = limits.tokensPerDay;
    }
    const update =
      mode === 'same-minute'
        ? 'SET leases.#id = :lease, n = n + :one, expiresAt = :ttl'
        : 'SET leases.#id = :lease, win = :m, n = :one, expiresAt = :ttl';
    return this.#update(key, update, conditions.join(' AND '), {
      names: { '#id': runId, ...(limits.tokensPerDay !== undefined ? { '#day': 'day' } : {}) },
      values,
    });
  }

  async #addToDay(
    principal: string,
    day: string,
    usage: TokenUsage,
    options: { release: boolean },
  ): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: keys.quota(principal), sk: keys.quotaDay(day) },
        UpdateExpression: 'ADD inputTokens :i, outputTokens :o, runs :one SET expiresAt = :ttl',
        ExpressionAttributeValues: {
          ':i': usage.inputTokens,
          ':o': usage.outputTokens,
          ':one': options.release ? 1 : 0,
          ':ttl': this.expiry(KEEP_SECONDS),
        },
      }),
    );
  }

  /** Drops leases that expired, each only if it still holds the value seen (not renewed). */
  async #dropLeases(key: { pk: string; sk: string }, expired: [string, number][]) {
    const batch = expired.slice(0, 50);
    if (batch.length === 0) return;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    batch.forEach(([id, until], i) => {
      names[`#e${i}`] = id;
      values[`:e${i}`] = until;
    });
    await this.#update(
      key,
      `REMOVE ${batch.map((_, i) => `leases.#e${i}`).join(', ')}`,
      batch.map((_, i) => `leases.#e${i} = :e${i}`).join(' AND '),
      { names, values },
    );
  }

  async #create(key: { pk: string; sk: string }, item: Item): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...key, ...item, expiresAt: this.expiry(KEEP_SECONDS) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async #get(key: { pk: string; sk: string }): Promise<Item | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  /** A conditional update: true when applied, false when its condition failed. */
  async #update(
    key: { pk: string; sk: string },
    update: string,
    condition: string,
    expr: { names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: condition,
          ...(expr.names && Object.keys(expr.names).length > 0
            ? { ExpressionAttributeNames: expr.names }
            : {}),
          ...(expr.values && Object.keys(expr.values).length > 0
            ? { ExpressionAttributeValues: expr.values }
            : {}),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }
}

/** Which limit the item's counters are at, or undefined when the refusal was a race or a minute. */
function refusalOf(
  item: Item | undefined,
  limits: QuotaLimits,
  now: number,
): Extract<Admission, { ok: false }> | undefined {
  const day = dayOf(now);
  const tokens = item?.day === day ? Number(item.dayTokens ?? 0) : 0;
  if (limits.tokensPerDay !== undefined && tokens >= limits.tokensPerDay) {
    return { ok: false, quota: 'tokensPerDay', retryAfter: secondsToNextDay(now) };
  }
  const held = Object.keys(item?.leases ?? {}).length;
  if (limits.runsInFlight !== undefined && held >= limits.runsInFlight) {
    return { ok: false, quota: 'runsInFlight', retryAfter: IN_FLIGHT_RETRY_SECONDS };
  }
  const thisMinute = item?.win === minuteOf(now) ? Number(item.n ?? 0) : 0;
  if (limits.runsPerMinute !== undefined && thisMinute >= limits.runsPerMinute) {
    return { ok: false, quota: 'runsPerMinute', retryAfter: secondsToNextMinute(now) };
  }
  return undefined;
}

function expiredLeases(item: Item | undefined, now: number): [string, number][] {
  return Object.entries((item?.leases ?? {}) as Record<string, number>).filter(
    ([, until]) => Number(until) <= now,
  );
}

function liveLeases(item: Item | undefined, now: number): number {
  return Object.values((item?.leases ?? {}) as Record<string, number>).filter(
    (until) => Number(until) > now,
  ).length;
}

function connectionsRefused(): Admission {
  return { ok: false, quota: 'connections', retryAfter: CONNECTIONS_RETRY_SECONDS };
}
