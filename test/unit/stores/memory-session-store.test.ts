import { describe, expect, it } from 'vitest';
import { newSession, SessionConflict } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';

describe('InMemorySessionStore', () => {
  it('creates with version 0 and increments the version on every save', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const data = newSession('s1', 1);

    // Act
    const v1 = await store.save(data, 0);
    const v2 = await store.save({ ...data, turns: 1 }, v1);
    const loaded = await store.load('s1');

    // Assess
    expect([v1, v2]).toEqual([1, 2]);
    expect(loaded).toEqual({ data: { ...data, turns: 1 }, version: 2 });
    expect(store.size).toBe(1);
  });

  it('refuses a save at a stale version and keeps the winner', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const data = newSession('s1', 1);
    await store.save(data, 0);
    await store.save({ ...data, turns: 1 }, 1);

    // Act
    const stale = store.save({ ...data, turns: 7 }, 1);

    // Assess
    await expect(stale).rejects.toBeInstanceOf(SessionConflict);
    await expect(stale).rejects.toMatchObject({ code: 'session-conflict' });
    expect(await store.load('s1')).toMatchObject({ version: 2, data: { turns: 1 } });
  });

  it('refuses to create (version 0) a session that exists', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    await store.save(newSession('s1', 1), 0);

    // Act
    const create = store.save({ ...newSession('s1', 2), turns: 5 }, 0);

    // Assess
    await expect(create).rejects.toMatchObject({ code: 'session-conflict' });
    expect(await store.load('s1')).toMatchObject({ version: 1, data: { createdAt: 1, turns: 0 } });
  });

  it('refuses to update a session that does not exist', async () => {
    // Prepare
    const store = new InMemorySessionStore();

    // Act
    const update = store.save(newSession('s1', 1), 3);

    // Assess
    await expect(update).rejects.toBeInstanceOf(SessionConflict);
    expect(store.size).toBe(0);
  });

  it('never shares objects with callers', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const data = { ...newSession('s1', 1), context: { user: { name: 'ann' } } };
    await store.save(data, 0);

    // Act
    data.context.user.name = 'changed after save';
    const first = await store.load('s1');
    if (first) {
      (first.data.context.user as { name: string }).name = 'changed after load';
      first.data.state.x = 1;
    }
    const second = await store.load('s1');

    // Assess
    expect(second?.data.context).toEqual({ user: { name: 'ann' } });
    expect(second?.data.state).toEqual({});
  });

  it('deletes a session, after which it can be created again', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    await store.save(newSession('s1', 1), 0);
    await store.save(newSession('s2', 1), 0);

    // Act
    await store.delete('s1');
    await store.delete('missing');
    const gone = await store.load('s1');
    const recreated = await store.save(newSession('s1', 2), 0);

    // Assess
    expect(gone).toBeUndefined();
    expect(recreated).toBe(1);
    expect(await store.load('s2')).toMatchObject({ version: 1 });
  });

  it('refuses to load stored data that fails the session schema', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const bad = { ...newSession('s1', 1), turns: -1 };
    await store.save(bad, 0);

    // Act
    const load = store.load('s1');

    // Assess
    await expect(load).rejects.toMatchObject({ code: 'session-corrupt' });
  });
});
