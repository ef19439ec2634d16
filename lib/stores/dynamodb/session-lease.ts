import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Release, SessionLock } from '../../core/session-lock.js';
import { SessionBusy } from '../../core/stores.js';
import { DynamoBase, type DynamoStoreOptions, isConditionFailed, StoreThrottled } from './base.js';
import { keys } from './table.js';

export interface DynamoSessionLockOptions extends DynamoStoreOptions {
  /** A holder that stops renewing (a crashed Lambda) loses the lease after this long. */
  leaseMs?: number;
  /** How long `acquire` keeps trying before `SessionBusy`. */
  waitMs?: number;
  /** First and largest pause between attempts (jittered, doubling). */
  retryMs?: number;
  maxRetryMs?: number;
}

/**
 * One turn of a session at a time across Lambda instances: a conditional `LEASE` item (holder,
 * `leaseUntil`) taken when absent or lapsed, renewed while held, deleted on release only by its
 * holder. The session's version check stays the safety net if a lease lapses mid-turn.
 */
export class DynamoSessionLock extends DynamoBase implements SessionLock {
  readonly #leaseMs: number;
  readonly #waitMs: number;
  readonly #retryMs: number;
  readonly #maxRetryMs: number;

  constructor(options: DynamoSessionLockOptions) {
    super(options);
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#waitMs = options.waitMs ?? 60_000;
    this.#retryMs = options.retryMs ?? 20;
    this.#maxRetryMs = options.maxRetryMs ?? 500;
  }

  async acquire(sessionId: string, signal?: AbortSignal): Promise<Release> {
    const key = { pk: keys.session(sessionId), sk: keys.lease };
    const holder = randomUUID();
    const started = Date.now();
    let pause = this.#retryMs;
    for (;;) {
      signal?.throwIfAborted();
      if (await this.#take(key, holder)) break;
      const waited = Date.now() - started;
      if (waited >= this.#waitMs) throw new SessionBusy(sessionId, waited);
      await sleep(Math.random() * pause + pause / 2, signal);
      pause = Math.min(pause * 2, this.#maxRetryMs);
    }
    // Renew well before the lease lapses, for turns longer than one lease.
    const timer = setInterval(() => void this.#renew(key, holder), this.#leaseMs / 3);
    timer.unref();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      // Throttling is retried in place: the turn is done, and a kept lease holds the next one up.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.doc.send(
            new DeleteCommand({
              TableName: this.table,
              Key: key,
              ConditionExpression: 'holder = :holder',
              ExpressionAttributeValues: { ':holder': holder },
            }),
          );
          return;
        } catch (err) {
          // Lapsed and taken by another turn: not ours to delete.
          if (isConditionFailed(err)) return;
          if (!(err instanceof StoreThrottled) || attempt >= 3) throw err;
          await sleep(100 * 2 ** attempt);
        }
      }
    };
  }

  async #take(key: { pk: string; sk: string }, holder: string): Promise<boolean> {
    const now = this.now();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...key, holder, leaseUntil: now + this.#leaseMs, expiresAt: this.#ttl(now) },
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async #renew(key: { pk: string; sk: string }, holder: string): Promise<void> {
    const now = this.now();
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET leaseUntil = :until, expiresAt = :ttl',
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: {
            ':until': now + this.#leaseMs,
            ':ttl': this.#ttl(now),
            ':holder': holder,
          },
        }),
      );
    } catch {
      // Lost or unreachable: the version check on save still refuses a conflicting write.
    }
  }

  /** The lease item outlives its lease a little, then DynamoDB may delete it. */
  #ttl(now: number): number {
    return Math.ceil((now + this.#leaseMs) / 1000) + 3600;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
