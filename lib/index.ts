// The small public barrel; frameworks and testing helpers have their own subpath exports.
export * from './core/index.js';
export { InMemorySessionStore } from './stores/index.js';
