import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { InProcessSessionLock, type Release } from '../../../lib/core/index.js';
import { settle } from './fake-runner.js';

describe('InProcessSessionLock', () => {
  it('hands one session to its waiters in FIFO order, one at a time', async () => {
    // Prepare
    const lock = new InProcessSessionLock();
    const order: string[] = [];
    const releases = new Map<string, Release>();
    const take = (name: string) =>
      lock.acquire('s1').then((release) => {
        order.push(name);
        releases.set(name, release);
      });

    // Act
    const all = ['a', 'b', 'c', 'd'].map(take);
    await settle();
    const heldFirst = [...order];
    for (const name of ['a', 'b', 'c', 'd']) {
      await settle();
      await releases.get(name)?.();
    }
    await Promise.all(all);

    // Assess
    expect(heldFirst).toEqual(['a']);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lets different sessions go at the same time', async () => {
    // Prepare
    const lock = new InProcessSessionLock();
    await lock.acquire('s1');

    // Act
    const other = await lock.acquire('s2');

    // Assess
    expect(other).toBeTypeOf('function');
  });

  it('gives up waiting on abort and lets the queue behind move on', async () => {
    // Prepare
    const lock = new InProcessSessionLock();
    const releaseA = await lock.acquire('s1');
    const controller = new AbortController();
    const b = lock.acquire('s1', controller.signal);
    let cHeld = false;
    const c = lock.acquire('s1').then((release) => {
      cHeld = true;
      return release;
    });

    // Act
    controller.abort(new Error('gave up'));
    const bFailure = await b.catch((err: Error) => err);
    await settle();
    const cHeldBeforeA = cHeld;
    await releaseA();
    const releaseC = await c;
    await releaseC();
    const d = await lock.acquire('s1');

    // Assess
    expect(bFailure).toMatchObject({ message: 'gave up' });
    expect(cHeldBeforeA).toBe(false);
    expect(d).toBeTypeOf('function');
  });

  it('refuses an already aborted signal without holding the session', async () => {
    // Prepare
    const lock = new InProcessSessionLock();

    // Act
    const failure = await lock
      .acquire('s1', AbortSignal.abort(new Error('too late')))
      .catch((err: Error) => err);
    const next = await Promise.race([
      lock.acquire('s1').then(() => 'acquired'),
      settle().then(() => 'stuck'),
    ]);

    // Assess
    expect(failure).toMatchObject({ message: 'too late' });
    expect(next).toBe('acquired');
  });

  it('removes its abort listener once the session is held', async () => {
    // Prepare
    const lock = new InProcessSessionLock();
    const { signal } = new AbortController();

    // Act
    for (let i = 0; i < 3; i += 1) await (await lock.acquire('s1', signal))();

    // Assess
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
