import { performance } from 'node:perf_hooks';
import { DynamoRunEventStore } from '../lib/stores/dynamodb/run-event-store.js';

/**
 * bench:delivery's view of the stored write of a run's first token: when the worker began
 * storing the item holding it and when that write ended. Stored events are written behind
 * delivery (issue 30, write-behind), so this comes after the send and no longer delays it; the
 * columns show how long after the model a reconnecting client could read the first token back.
 * Wraps the store's `append` of this process's module instance (the local stack's worker shares it).
 */
export function stampStoredWrites(firstToken: string) {
  let start: number | undefined;
  let end: number | undefined;
  const append = DynamoRunEventStore.prototype.append;
  DynamoRunEventStore.prototype.append = async function (this: DynamoRunEventStore, ...args) {
    const first = start === undefined && JSON.stringify(args[0].messages).includes(firstToken);
    if (first) start = performance.now();
    try {
      return await append.apply(this, args);
    } finally {
      if (first) end = performance.now();
    }
  };
  return {
    reset() {
      start = undefined;
      end = undefined;
    },
    /** Per run: model → store start, and the store's write (NaN if no stored write was seen). */
    read(began: number): { toStore: number; store: number } {
      return { toStore: (start ?? NaN) - began, store: (end ?? NaN) - (start ?? NaN) };
    },
  };
}
