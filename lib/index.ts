// The small public barrel; frameworks and testing helpers have their own subpath exports. Only
// in-memory stores here: the root must import without the AWS SDK (DynamoDB stores: ./stores).
export * from './core/index.js';
export { InMemoryPausedRunStore } from './stores/memory/paused-run-store.js';
export { InMemorySessionStore } from './stores/memory/session-store.js';
