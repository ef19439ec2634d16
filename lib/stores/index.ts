// The distribution's store ports (lib/app's, no longer lib/core's), exported where their
// implementations are.
export * from '../app/ports/connections.js';
export * from '../app/ports/idempotency.js';
export * from '../app/ports/quotas.js';
export * from '../app/ports/run-events.js';
export * from '../app/ports/run-records.js';
export * from '../app/ports/session-index.js';
export * from './dynamodb/index.js';
export type { MemoryStoreOptions } from './memory/clock.js';
export { InMemoryConnectionStore } from './memory/connection-store.js';
export { InMemoryIdempotencyStore } from './memory/idempotency-store.js';
export { InMemoryRunJournalStore } from './memory/journal-store.js';
export { InMemoryPausedRunStore } from './memory/paused-run-store.js';
export { InMemoryQuotaStore } from './memory/quota-store.js';
export { InMemoryRunEventStore } from './memory/run-event-store.js';
export { InMemoryRunRecordStore } from './memory/run-record-store.js';
export { InMemorySessionIndex } from './memory/session-index.js';
export { InMemorySessionStore } from './memory/session-store.js';
