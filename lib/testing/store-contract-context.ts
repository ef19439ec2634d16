import { randomBytes } from 'node:crypto';

/**
 * What a contract hands a store factory: a clock it controls (so expiry can be tested without
 * waiting) and the TTL the store should apply. Factories are called once per test.
 */
export interface StoreContext {
  now: () => number;
  ttlSeconds: number;
}

export type StoreFactory<T> = (context: StoreContext) => T | Promise<T>;

/** A controllable clock starting at the real time (DynamoDB's own TTL deletion uses it). */
export class TestClock {
  #time = Date.now();
  readonly now = (): number => this.#time;

  advance(ms: number): void {
    this.#time += ms;
  }
}

export const CONTRACT_TTL_SECONDS = 3600;

/** A unique id per call, so tests sharing a store never see each other's records. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** Text that barely compresses, about `bytes` long: makes stores chunk. */
export function incompressibleText(bytes: number): string {
  return randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);
}

/** A fresh store on a test clock, and a session id of its own: the start of every contract test. */
export async function setupContract<T>(factory: StoreFactory<T>) {
  const clock = new TestClock();
  const store = await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS });
  return { clock, store, sessionId: uniqueId('s') };
}
