import { describe, expect, it } from 'vitest';
import type { ConnectionStore } from '../app/ports/connections.js';
import type { IdempotencyStore } from '../app/ports/idempotency.js';
import {
  CONTRACT_TTL_SECONDS,
  type StoreFactory,
  TestClock,
  uniqueId,
} from './store-contract-context.js';

async function setup<T>(factory: StoreFactory<T>) {
  const clock = new TestClock();
  const store = await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS });
  return { clock, store };
}

/** Contract of a `ConnectionStore`: connections, subscriptions, and clean disconnects. */
export function connectionStoreContract(name: string, factory: StoreFactory<ConnectionStore>) {
  describe(`ConnectionStore contract: ${name}`, () => {
    const connection = (now: number) => ({
      connectionId: uniqueId('c'),
      principal: 'alice',
      endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      connectedAt: now,
    });

    it('connects, subscribes, lists subscribers with their endpoint and format', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const [a, b] = [connection(clock.now()), connection(clock.now())];
      const [s1, s2] = [uniqueId('s'), uniqueId('s')];
      await store.connect(a);
      await store.connect(b);

      // Act
      await store.subscribe(a.connectionId, s1);
      await store.subscribe(a.connectionId, s2, 'ag-ui');
      await store.subscribe(b.connectionId, s1, 'ag-ui');
      const subscribers = await store.subscribers(s1);

      // Assess
      const byId = (x: { connectionId: string }, y: { connectionId: string }) =>
        x.connectionId.localeCompare(y.connectionId);
      expect(subscribers.sort(byId)).toEqual(
        [
          { ...a, sessionId: s1, format: 'native' },
          { ...b, sessionId: s1, format: 'ag-ui' },
        ].sort(byId),
      );
      expect(await store.get(a.connectionId)).toEqual({ ...a, sessions: [s1, s2].sort() });
    });

    it('unsubscribes one session and leaves the others', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const a = connection(clock.now());
      const [s1, s2] = [uniqueId('s'), uniqueId('s')];
      await store.connect(a);
      await store.subscribe(a.connectionId, s1);
      await store.subscribe(a.connectionId, s2);

      // Act
      await store.unsubscribe(a.connectionId, s1);

      // Assess
      expect(await store.subscribers(s1)).toEqual([]);
      expect(await store.subscribers(s2)).toHaveLength(1);
      expect((await store.get(a.connectionId))?.sessions).toEqual([s2]);
    });

    it('disconnect removes the connection and every subscription it had', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const [a, b] = [connection(clock.now()), connection(clock.now())];
      const [s1, s2] = [uniqueId('s'), uniqueId('s')];
      await store.connect(a);
      await store.connect(b);
      await store.subscribe(a.connectionId, s1);
      await store.subscribe(a.connectionId, s2);
      await store.subscribe(b.connectionId, s1);

      // Act
      await store.disconnect(a.connectionId);

      // Assess
      expect(await store.get(a.connectionId)).toBeUndefined();
      expect((await store.subscribers(s1)).map((s) => s.connectionId)).toEqual([b.connectionId]);
      expect(await store.subscribers(s2)).toEqual([]);
    });

    it('refuses to subscribe a connection that is gone', async () => {
      // Prepare
      const { store } = await setup(factory);

      // Act
      const subscribe = store.subscribe('nobody', uniqueId('s'));

      // Assess
      await expect(subscribe).rejects.toMatchObject({ code: 'connection-not-found' });
    });

    it('forgets connections after the TTL', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const a = connection(clock.now());
      const s1 = uniqueId('s');
      await store.connect(a);
      await store.subscribe(a.connectionId, s1);

      // Act
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);

      // Assess
      expect(await store.get(a.connectionId)).toBeUndefined();
      expect(await store.subscribers(s1)).toEqual([]);
      await expect(store.subscribe(a.connectionId, s1)).rejects.toMatchObject({
        code: 'connection-not-found',
      });
    });
  });
}

/** Contract of an `IdempotencyStore`: one claim wins; later claims see progress or the result. */
export function idempotencyStoreContract(name: string, factory: StoreFactory<IdempotencyStore>) {
  describe(`IdempotencyStore contract: ${name}`, () => {
    it('claims a key once; then in-progress; after completion the stored result', async () => {
      // Prepare
      const { store } = await setup(factory);
      const key = uniqueId('k');

      // Act
      const first = await store.claim(key);
      const during = await store.claim(key);
      if (first.outcome !== 'claimed') throw new Error('first claim must win');
      await store.complete(key, first.token, { reply: 'done', n: 1 });
      const after = await store.claim(key);

      // Assess
      expect(during).toEqual({ outcome: 'in-progress' });
      expect(after).toEqual({ outcome: 'completed', result: { reply: 'done', n: 1 } });
    });

    it('lets exactly one of many concurrent claims win', async () => {
      // Prepare
      const { store } = await setup(factory);
      const key = uniqueId('k');

      // Act
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claim(key)));

      // Assess
      expect(claims.filter((c) => c.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c.outcome === 'in-progress')).toHaveLength(9);
    });

    it('frees a released key for the next claim', async () => {
      // Prepare
      const { store } = await setup(factory);
      const key = uniqueId('k');
      const first = await store.claim(key);
      if (first.outcome !== 'claimed') throw new Error('first claim must win');

      // Act
      await store.release(key, first.token);
      const again = await store.claim(key);

      // Assess
      expect(again.outcome).toBe('claimed');
    });

    it('lets a lapsed claim be taken over; the old holder can no longer complete', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const key = uniqueId('k');
      const crashed = await store.claim(key, { inProgressMs: 5_000 });
      if (crashed.outcome !== 'claimed') throw new Error('first claim must win');

      // Act
      clock.advance(6_000);
      const takeover = await store.claim(key, { inProgressMs: 5_000 });
      const late = store.complete(key, crashed.token, 'late');

      // Assess
      expect(takeover.outcome).toBe('claimed');
      await expect(late).rejects.toMatchObject({ code: 'idempotency-claim-lost' });
    });

    it('refuses a key reused with another payload fingerprint', async () => {
      // Prepare
      const { store } = await setup(factory);
      const key = uniqueId('k');
      await store.claim(key, { fingerprint: 'hash-1' });

      // Act
      const reuse = store.claim(key, { fingerprint: 'hash-2' });

      // Assess
      await expect(reuse).rejects.toMatchObject({ code: 'idempotency-key-reused' });
    });

    it('forgets a completed key after its TTL', async () => {
      // Prepare
      const { store, clock } = await setup(factory);
      const key = uniqueId('k');
      const first = await store.claim(key, { ttlSeconds: 60 });
      if (first.outcome !== 'claimed') throw new Error('first claim must win');
      await store.complete(key, first.token, 1);

      // Act
      clock.advance(61_000);
      const again = await store.claim(key);

      // Assess
      expect(again.outcome).toBe('claimed');
    });
  });
}
