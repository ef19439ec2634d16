import { expect, it } from 'vitest';
import { SessionConflict } from '../core/errors.js';
import {
  type JsonValue,
  newSession,
  type SessionData,
  type SessionStore,
} from '../core/session.js';
import { incompressibleText } from './store-contract-context.js';

type Setup = () => Promise<{ store: SessionStore; id: string; at: number }>;

/** A session whose runner slot holds a chat-like history (the shape stores may keep as a log). */
function chat(data: SessionData, history: JsonValue[], turns = history.length): SessionData {
  return {
    ...data,
    turns,
    state: { chat: { schemaVersion: 1, history, cursor: { at: turns } } },
  };
}

const message = (n: number): JsonValue => ({ role: n % 2 ? 'assistant' : 'user', text: `m${n}` });

/**
 * Sessions whose history grows turn by turn, is edited, shrinks or races: what a store that keeps
 * history as appended items must get right (registered by `sessionStoreContract`).
 */
export function sessionHistoryContract(setup: Setup): void {
  it('round-trips a history appended turn by turn, then edited, shrunk and grown again', async () => {
    // Prepare
    const { store, id, at } = await setup();
    let data = newSession(id, at, 'alice');
    let version = await store.save(data, 0);
    const history: JsonValue[] = [];

    // Act
    const seen: (SessionData | undefined)[] = [];
    for (let turn = 0; turn < 12; turn++) {
      history.push(message(turn), message(turn + 100));
      data = chat(data, [...history]);
      version = await store.save(data, version);
      seen.push((await store.load(id))?.data);
    }
    const edited = chat(data, [{ role: 'system', text: 'summary' }, ...history.slice(20)]);
    const v2 = await store.save(edited, version);
    const afterEdit = await store.load(id);
    const shrunk = chat(edited, [message(1)]);
    const v3 = await store.save(shrunk, v2);
    const afterShrink = await store.load(id);
    const grown = chat(shrunk, [message(1), ...Array.from({ length: 9 }, (_, n) => message(n))]);
    const v4 = await store.save(grown, v3);

    // Assess
    expect(seen.at(-1)).toEqual(data);
    expect(seen[3]?.state).toEqual(chat(data, history.slice(0, 8)).state);
    expect(afterEdit).toEqual({ data: edited, version: v2 });
    expect(afterShrink).toEqual({ data: shrunk, version: v3 });
    expect(await store.load(id)).toEqual({ data: grown, version: v4 });
  });

  it('lets exactly one of many writers appending at one version win', async () => {
    // Prepare
    const { store, id, at } = await setup();
    const base = chat(newSession(id, at), [message(0), message(1), message(2), message(3)]);
    const v1 = await store.save(base, 0);
    await store.load(id);

    // Act
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        store.save(
          chat(base, [...(base.state.chat as { history: JsonValue[] }).history, message(10 + i)]),
          v1,
        ),
      ),
    );

    // Assess
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SessionConflict);
    const history = (base.state.chat as { history: JsonValue[] }).history;
    expect((await store.load(id))?.data.state.chat).toMatchObject({
      history: [...history, message(10 + (won[0] ?? 0))],
    });
  });

  it('round-trips a history with an item past the item size limit appended to it', async () => {
    // Prepare
    const { store, id, at } = await setup();
    const history = [message(0), message(1), message(2), message(3)];
    const v1 = await store.save(chat(newSession(id, at), history), 0);
    await store.load(id);

    // Act
    const big = chat(newSession(id, at), [...history, incompressibleText(900_000)]);
    const v2 = await store.save(big, v1);

    // Assess
    expect(await store.load(id)).toEqual({ data: big, version: v2 });
  });

  it('shares no objects of a long history with its callers', async () => {
    // Prepare
    const { store, id, at } = await setup();
    const history = Array.from({ length: 8 }, (_, n) => message(n));
    const data = chat(newSession(id, at), history);
    await store.save(data, 0);

    // Act
    history.push('mutated');
    const loaded = await store.load(id);
    (loaded!.data.state.chat as { history: JsonValue[] }).history.push('mutated too');

    // Assess
    expect((await store.load(id))?.data).toEqual(chat(data, history.slice(0, 8)));
  });
}
