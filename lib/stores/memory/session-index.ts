import type {
  SessionIndex,
  SessionIndexEntry,
  SessionIndexPosition,
} from '../../app/ports/session-index.js';

/** The owner index in memory: the DynamoDB one's order (creation, then id), newest first. */
export class InMemorySessionIndex implements SessionIndex {
  readonly #owners = new Map<string, SessionIndexEntry[]>();

  async add(owner: string, entry: SessionIndexEntry): Promise<void> {
    const entries = (this.#owners.get(owner) ?? []).filter(
      (e) => !(e.sessionId === entry.sessionId && e.createdAt === entry.createdAt),
    );
    entries.push({ ...entry });
    entries.sort((a, b) => compare(b, a));
    this.#owners.set(owner, entries);
  }

  async page(owner: string, options: { limit: number; after?: SessionIndexPosition }) {
    const { after } = options;
    const all = (this.#owners.get(owner) ?? []).filter((e) => !after || compare(e, after) < 0);
    return {
      entries: all.slice(0, options.limit).map((e) => ({ ...e })),
      more: all.length > options.limit,
    };
  }
}

function compare(a: SessionIndexPosition, b: SessionIndexPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}
