export * from './dynamodb/index.js';
export type { MemoryStoreOptions } from './memory/clock.js';
export { InMemoryConnectionStore } from './memory/connection-store.js';
export { InMemoryIdempotencyStore } from './memory/idempotency-store.js';
export { InMemoryRunJournalStore } from './memory/journal-store.js';
export { InMemoryPausedRunStore } from './memory/paused-run-store.js';
export { InMemoryRunRecordStore } from './memory/run-record-store.js';
export { InMemorySessionStore } from './memory/session-store.js';
