import { describe, expect, it } from 'vitest';
import { dayOf, type QuotaStore } from '../app/ports/quotas.js';
import { type StoreFactory, setupContract, uniqueId } from './store-contract-context.js';

const HOUR = 3_600_000;

/** Contract of a `QuotaStore`: atomic admission per principal, leases that lapse, usage per day. */
export function quotaStoreContract(name: string, factory: StoreFactory<QuotaStore>): void {
  describe(`QuotaStore contract: ${name}`, () => {
    const setup = async () => {
      const { store, clock } = await setupContract(factory);
      return { store, clock, alice: uniqueId('alice'), bob: uniqueId('bob') };
    };

    it('admits runs up to runsInFlight, refuses the next, admits again once one ended', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const limits = { runsInFlight: 2 };
      const until = clock.now() + HOUR;

      // Act
      const first = await store.admitRun(alice, 'r1', limits, until);
      const second = await store.admitRun(alice, 'r2', limits, until);
      const third = await store.admitRun(alice, 'r3', limits, until);
      await store.endRun(alice, 'r1', { inputTokens: 0, outputTokens: 0 }, { release: true });
      const fourth = await store.admitRun(alice, 'r4', limits, until);

      // Assess
      expect([first.ok, second.ok, fourth.ok]).toEqual([true, true, true]);
      expect(third).toEqual({ ok: false, quota: 'runsInFlight', retryAfter: 2 });
      expect((await store.usage(alice)).runsInFlight).toBe(2);
    });

    it('of N concurrent admissions against runsInFlight k, exactly k pass', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const until = clock.now() + HOUR;

      // Act
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          store.admitRun(alice, `r${i}`, { runsInFlight: 3 }, until),
        ),
      );

      // Assess
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect((await store.usage(alice)).runsInFlight).toBe(3);
    });

    it('keeps an ended attempt in flight unless it releases (a retried job)', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const limits = { runsInFlight: 1 };
      await store.admitRun(alice, 'r1', limits, clock.now() + HOUR);

      // Act
      await store.endRun(alice, 'r1', { inputTokens: 5, outputTokens: 1 }, { release: false });
      const during = await store.admitRun(alice, 'r2', limits, clock.now() + HOUR);

      // Assess
      expect(during).toMatchObject({ ok: false, quota: 'runsInFlight' });
      expect((await store.usage(alice)).tokensToday).toBe(6);
    });

    it('a run whose end never came stops counting once its lease expired', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const limits = { runsInFlight: 2 };
      await store.admitRun(alice, 'dead-1', limits, clock.now() + 60_000);
      await store.admitRun(alice, 'dead-2', limits, clock.now() + 60_000);

      // Act
      const before = await store.admitRun(alice, 'r3', limits, clock.now() + HOUR);
      clock.advance(61_000);
      const after = await store.admitRun(alice, 'r4', limits, clock.now() + HOUR);
      const again = await store.admitRun(alice, 'r5', limits, clock.now() + HOUR);
      const full = await store.admitRun(alice, 'r6', limits, clock.now() + HOUR);

      // Assess
      expect(before.ok).toBe(false);
      expect([after.ok, again.ok, full.ok]).toEqual([true, true, false]);
      expect((await store.usage(alice)).runsInFlight).toBe(2);
    });

    it('counts runs per minute and admits again in the next minute', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      clock.advance(60_000 - (clock.now() % 60_000) + 10_000); // 10 s into a minute
      const limits = { runsPerMinute: 2 };
      const until = clock.now() + HOUR;

      // Act
      const results = [
        await store.admitRun(alice, 'r1', limits, until),
        await store.admitRun(alice, 'r2', limits, until),
        await store.admitRun(alice, 'r3', limits, until),
      ];
      clock.advance(50_000);
      const next = await store.admitRun(alice, 'r4', limits, until);

      // Assess
      expect(results.map((r) => r.ok)).toEqual([true, true, false]);
      expect(results[2]).toEqual({ ok: false, quota: 'runsPerMinute', retryAfter: 50 });
      expect(next.ok).toBe(true);
      expect((await store.usage(alice)).runsThisMinute).toBe(1);
    });

    it('adds tokens per UTC day and refuses runs once the day is spent', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const limits = { tokensPerDay: 100 };
      const until = clock.now() + HOUR;
      await store.admitRun(alice, 'r1', limits, until);
      await store.endRun(alice, 'r1', { inputTokens: 70, outputTokens: 20 }, { release: true });
      const under = await store.admitRun(alice, 'r2', limits, until);
      await store.endRun(alice, 'r2', { inputTokens: 8, outputTokens: 2 }, { release: true });

      // Act
      const over = await store.admitRun(alice, 'r3', limits, until);
      const today = dayOf(clock.now());
      clock.advance(24 * HOUR);
      const tomorrow = await store.admitRun(alice, 'r4', limits, clock.now() + HOUR);
      const usage = await store.usage(alice);

      // Assess
      expect(under.ok).toBe(true);
      expect(over).toMatchObject({ ok: false, quota: 'tokensPerDay' });
      expect(over.ok === false && over.retryAfter).toBeGreaterThan(0);
      expect(over.ok === false && over.retryAfter).toBeLessThanOrEqual(24 * 3600);
      expect(tomorrow.ok).toBe(true);
      expect(usage.tokensToday).toBe(0);
      expect(usage.days).toEqual([{ day: today, inputTokens: 78, outputTokens: 22, runs: 2 }]);
    });

    it("one principal at its limits leaves another's admissions alone", async () => {
      // Prepare
      const { store, clock, alice, bob } = await setup();
      const limits = { runsInFlight: 1, runsPerMinute: 1, connections: 1 };
      const until = clock.now() + HOUR;
      await store.admitRun(alice, 'a1', limits, until);
      await store.openConnection(alice, 'ca', 1, until);

      // Act
      const aliceRun = await store.admitRun(alice, 'a2', limits, until);
      const aliceSocket = await store.openConnection(alice, 'ca2', 1, until);
      const bobRun = await store.admitRun(bob, 'b1', limits, until);
      const bobSocket = await store.openConnection(bob, 'cb', 1, until);

      // Assess
      expect([aliceRun.ok, aliceSocket.ok]).toEqual([false, false]);
      expect([bobRun.ok, bobSocket.ok]).toEqual([true, true]);
    });

    it('admits connections up to the limit, concurrently exactly so; a close frees one', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      const until = clock.now() + HOUR;

      // Act
      const opened = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.openConnection(alice, `c${i}`, 3, until)),
      );
      const winner = opened.findIndex((r) => r.ok);
      await store.closeConnection(alice, `c${winner}`);
      const after = await store.openConnection(alice, 'c-new', 3, until);
      const full = await store.openConnection(alice, 'c-full', 3, until);

      // Assess
      expect(opened.filter((r) => r.ok)).toHaveLength(3);
      expect(opened.find((r) => !r.ok)).toEqual({ ok: false, quota: 'connections', retryAfter: 5 });
      expect([after.ok, full.ok]).toEqual([true, false]);
      expect((await store.usage(alice)).connections).toBe(3);
    });

    it('a connection whose disconnect never came lapses with its lease', async () => {
      // Prepare
      const { store, clock, alice } = await setup();
      await store.openConnection(alice, 'lost', 1, clock.now() + 60_000);

      // Act
      const before = await store.openConnection(alice, 'c2', 1, clock.now() + HOUR);
      clock.advance(61_000);
      const after = await store.openConnection(alice, 'c3', 1, clock.now() + HOUR);

      // Assess
      expect([before.ok, after.ok]).toEqual([false, true]);
    });

    it('admits without limits and still meters usage', async () => {
      // Prepare
      const { store, clock, alice } = await setup();

      // Act
      await store.admitRun(alice, 'r1', {}, clock.now() + HOUR);
      await store.openConnection(alice, 'c1', undefined, clock.now() + HOUR);
      const usage = await store.usage(alice);

      // Assess
      expect(usage).toMatchObject({ runsInFlight: 1, connections: 1, runsThisMinute: 1 });
    });

    it('keeps, replaces and clears an override; refuses a malformed one', async () => {
      // Prepare
      const { store, alice } = await setup();

      // Act
      const none = await store.override(alice);
      await store.setOverride(alice, { runsInFlight: 9, tokensPerDay: 1_000_000 });
      const set = await store.override(alice);
      const bad = await store.setOverride(alice, { runsInFlight: -1 }).catch((err) => err);
      await store.setOverride(alice, undefined);

      // Assess
      expect(none).toBeUndefined();
      expect(set).toEqual({ runsInFlight: 9, tokensPerDay: 1_000_000 });
      expect(bad).toMatchObject({ code: 'invalid-record' });
      expect(await store.override(alice)).toBeUndefined();
    });
  });
}
