import { expect } from 'vitest';
import { type StreamEvent, StreamEventSchema } from '../../core/events.js';
import type { Runtime } from '../../core/runtime.js';
import type { InMemoryPausedRunStore } from '../../stores/memory/paused-run-store.js';
import type { InMemorySessionStore } from '../../stores/memory/session-store.js';
import type { ScriptedModelServer } from '../scripted-model-server.js';
import type { ContractRecord } from './tools.js';

/** One suite's live pieces, rebuilt before every test. */
export interface ContractWorld {
  server: ScriptedModelServer;
  runtime: Runtime;
  sessions: InMemorySessionStore;
  pausedRuns: InMemoryPausedRunStore;
  record: ContractRecord;
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Every event valid, run-started first, exactly one terminal event and it is last. */
export function expectWellFormed(events: readonly StreamEvent[]): void {
  for (const event of events) expect(StreamEventSchema.parse(event)).toEqual(event);
  expect(events[0]?.type).toBe('run-started');
  const terminal = events.filter((e) =>
    ['run-finished', 'run-paused', 'run-error'].includes(e.type),
  );
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
}
