import { describe, expect, it } from 'vitest';
import { SessionConflict } from '../core/errors.js';
import { newSession, type SessionData, type SessionStore } from '../core/session.js';
import type { SessionLock } from '../core/session-lock.js';
import {
  CONTRACT_TTL_SECONDS,
  incompressibleText,
  type StoreFactory,
  TestClock,
  uniqueId,
} from './store-contract-context.js';
import { sessionHistoryContract } from './store-contract-history.js';

export * from './store-contract-approvals.js';
export * from './store-contract-connections.js';
export {
  CONTRACT_TTL_SECONDS,
  type StoreContext,
  type StoreFactory,
  TestClock,
} from './store-contract-context.js';
export * from './store-contract-events.js';
export * from './store-contract-journal.js';
export * from './store-contract-quotas.js';
export * from './store-contract-run-records.js';
export * from './store-contract-runs.js';

/**
 * Contract suites for store implementations: call one inside a test file with a factory, and it
 * registers vitest tests every implementation of the port must pass.
 */
export function sessionStoreContract(name: string, factory: StoreFactory<SessionStore>): void {
  describe(`SessionStore contract: ${name}`, () => {
    const setup = async () => {
      const clock = new TestClock();
      const store = await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS });
      return { clock, store, id: uniqueId('s'), at: clock.now() };
    };

    it('loads nothing for an unknown session', async () => {
      // Prepare
      const { store, id } = await setup();

      // Act
      const loaded = await store.load(id);

      // Assess
      expect(loaded).toBeUndefined();
    });

    it('creates at version 0, then versions every save and round-trips the data', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const data = withHistory(newSession(id, at, 'alice'), ['héllo 👋', 'wörld']);

      // Act
      const v1 = await store.save(data, 0);
      const v2 = await store.save({ ...data, turns: 1, agent: 'a' }, v1);
      const loaded = await store.load(id);

      // Assess
      expect(v2).not.toBe(v1);
      expect(loaded).toEqual({ data: { ...data, turns: 1, agent: 'a' }, version: v2 });
    });

    it('refuses a stale version with SessionConflict and keeps the winner', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const data = newSession(id, at);
      const v1 = await store.save(data, 0);
      const v2 = await store.save({ ...data, turns: 1 }, v1);

      // Act
      const stale = store.save({ ...data, turns: 9 }, v1);

      // Assess
      await expect(stale).rejects.toBeInstanceOf(SessionConflict);
      await expect(stale).rejects.toMatchObject({ code: 'session-conflict' });
      expect(await store.load(id)).toMatchObject({ version: v2, data: { turns: 1 } });
    });

    it('refuses to create a session that exists, or update one that does not', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const other = uniqueId('s');
      await store.save(newSession(id, at), 0);

      // Act
      const [create, update] = await Promise.allSettled([
        store.save({ ...newSession(id, at), turns: 5 }, 0),
        store.save(newSession(other, at), 3),
      ]);

      // Assess
      for (const r of [create, update]) {
        expect(r.status === 'rejected' && r.reason).toBeInstanceOf(SessionConflict);
      }
      expect(await store.load(id)).toMatchObject({ data: { turns: 0 } });
      expect(await store.load(other)).toBeUndefined();
    });

    it('lets exactly one of many concurrent writers at one version win', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const v1 = await store.save(newSession(id, at), 0);

      // Act
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.save({ ...newSession(id, at), turns: i + 1 }, v1),
        ),
      );

      // Assess
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const r of lost) expect(r.reason).toBeInstanceOf(SessionConflict);
      const winner = results.indexOf(won[0]!) + 1;
      expect(await store.load(id)).toMatchObject({ data: { turns: winner } });
    });

    it('round-trips a 2 MB session, then a small one, then a large one again', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const big = withHistory(newSession(id, at), [incompressibleText(2_000_000)]);
      const small = withHistory(newSession(id, at), ['short']);
      const other = withHistory(newSession(id, at), [incompressibleText(900_000), 'x']);

      // Act
      const v1 = await store.save(big, 0);
      const loadedBig = await store.load(id);
      const v2 = await store.save(small, v1);
      const loadedSmall = await store.load(id);
      const v3 = await store.save(other, v2);
      const loadedOther = await store.load(id);

      // Assess
      expect(loadedBig).toEqual({ data: big, version: v1 });
      expect(loadedSmall).toEqual({ data: small, version: v2 });
      expect(loadedOther).toEqual({ data: other, version: v3 });
    });

    it('reads an expired session as absent and lets it be created again', async () => {
      // Prepare
      const { store, id, at, clock } = await setup();
      await store.save({ ...newSession(id, at), turns: 4 }, 0);

      // Act
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      const expired = await store.load(id);
      const recreated = await store.save(newSession(id, clock.now()), 0);

      // Assess
      expect(expired).toBeUndefined();
      expect(await store.load(id)).toMatchObject({ version: recreated, data: { turns: 0 } });
    });

    it('keeps the incarnation: a session created again (after a delete or expiry) is a new life', async () => {
      // Prepare
      const { store, id, at, clock } = await setup();
      const first = newSession(id, at, 'alice');
      await store.save(first, 0);
      const kept = await store.load(id);
      await store.delete(id);
      const second = newSession(id, clock.now(), 'bob');
      await store.save(second, 0);
      const afterDelete = await store.load(id);

      // Act
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      const third = newSession(id, clock.now(), 'bob');
      await store.save(third, 0);
      const afterExpiry = await store.load(id);

      // Assess
      expect(kept?.data.incarnation).toBe(first.incarnation);
      expect(afterDelete?.data).toEqual(second);
      expect(afterExpiry?.data).toEqual(third);
      const lives = new Set([first, second, third].map((s) => s.incarnation));
      expect(lives.size).toBe(3);
    });

    it('refreshes expiry on every save', async () => {
      // Prepare
      const { store, id, at, clock } = await setup();
      const v1 = await store.save(newSession(id, at), 0);
      clock.advance((CONTRACT_TTL_SECONDS - 10) * 1000);

      // Act
      await store.save({ ...newSession(id, at), turns: 1 }, v1);
      clock.advance(20_000);

      // Assess
      expect(await store.load(id)).toMatchObject({ data: { turns: 1 } });
    });

    it('deletes a session', async () => {
      // Prepare
      const { store, id, at } = await setup();
      await store.save(withHistory(newSession(id, at), [incompressibleText(500_000)]), 0);

      // Act
      await store.delete(id);

      // Assess
      expect(await store.load(id)).toBeUndefined();
      await expect(store.save(newSession(id, at), 0)).resolves.toBeGreaterThan(0);
    });

    it('refuses to store prototype keys, so every stored session loads again', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const poisoned = newSession(id, at);
      poisoned.state.test = JSON.parse('{"__proto__": {"admin": true}}');

      // Act
      const save = store.save(poisoned, 0);

      // Assess
      await expect(save).rejects.toMatchObject({ code: 'invalid-record' });
      expect(await store.load(id)).toBeUndefined();
    });

    it('shares no objects with its callers', async () => {
      // Prepare
      const { store, id, at } = await setup();
      const data = withHistory(newSession(id, at), ['a']);
      await store.save(data, 0);

      // Act
      (data.state.test as { history: string[] }).history.push('mutated');
      const loaded = await store.load(id);
      (loaded!.data.state.test as { history: string[] }).history.push('mutated too');

      // Assess
      expect((await store.load(id))?.data.state.test).toEqual({ history: ['a'] });
    });

    sessionHistoryContract(setup);
  });
}

/** Contract of a `SessionLock`: one holder per session, others wait, aborts honoured. */
export function sessionLockContract(name: string, factory: StoreFactory<SessionLock>): void {
  describe(`SessionLock contract: ${name}`, () => {
    const setup = async () => {
      const clock = new TestClock();
      return { lock: await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS }) };
    };

    it('lets one turn of a session hold it at a time', async () => {
      // Prepare
      const { lock } = await setup();
      const id = uniqueId('s');
      const order: string[] = [];
      const first = await lock.acquire(id);

      // Act
      const second = lock.acquire(id).then((release) => {
        order.push('second');
        return release;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      order.push('first releases');
      await first();
      await (await second)();

      // Assess
      expect(order).toEqual(['first releases', 'second']);
    });

    it('lets different sessions go at once', async () => {
      // Prepare
      const { lock } = await setup();
      const release = await lock.acquire(uniqueId('s'));

      // Act
      const other = await lock.acquire(uniqueId('s'));

      // Assess
      await other();
      await release();
    });

    it('stops waiting when the signal aborts, and the session stays usable', async () => {
      // Prepare
      const { lock } = await setup();
      const id = uniqueId('s');
      const held = await lock.acquire(id);
      const controller = new AbortController();
      const reason = new Error('caller gave up');

      // Act
      const waiting = lock.acquire(id, controller.signal);
      setTimeout(() => controller.abort(reason), 50);
      const outcome = await waiting.then(
        () => 'acquired',
        (err: unknown) => err,
      );
      await held();
      const again = await lock.acquire(id);
      await again();

      // Assess
      expect(outcome).toBe(reason);
    });

    it('refuses at once when the signal is already aborted', async () => {
      // Prepare
      const { lock } = await setup();

      // Act
      const acquire = lock.acquire(uniqueId('s'), AbortSignal.abort(new Error('late')));

      // Assess
      await expect(acquire).rejects.toThrow('late');
    });
  });
}

function withHistory(data: SessionData, history: string[]): SessionData {
  return { ...data, state: { ...data.state, test: { history } } };
}
