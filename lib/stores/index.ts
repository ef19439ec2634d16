export { InMemorySessionStore } from './memory/session-store.js';
