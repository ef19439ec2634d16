import { performance } from 'node:perf_hooks';
import { DynamoRunEventStore } from '../lib/stores/dynamodb/run-event-store.js';

/**
 * bench:delivery's breakdown of a run's first send: when the worker began storing the message
 * carrying the first token (the stored events, issue 30, are written before delivery) and when
 * that write ended. Model → store start is the runner plus any wait on the run's seq block (now
 * reserved while the model thinks); store start → end is the stored-events write. Wraps the
 * store's `append` of this process's module instance (the local stack's worker shares it).
 */
export function stampStoredWrites(firstToken: string) {
  let start: number | undefined;
  let end: number | undefined;
  const append = DynamoRunEventStore.prototype.append;
  DynamoRunEventStore.prototype.append = async function (this: DynamoRunEventStore, ...args) {
    const first = start === undefined && JSON.stringify(args[0].events).includes(firstToken);
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
