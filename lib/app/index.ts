export * from './errors.js';
export * from './fair-use.js';
export * from './front-door.js';
export * from './idempotent.js';
export * from './policy.js';
export * from './ports.js';
export * from './run-records.js';
export * from './validation.js';
