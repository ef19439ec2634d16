export * from './ag-ui.js';
export * from './batcher.js';
export * from './codes.js';
export * from './delivery.js';
export * from './errors.js';
export * from './fifo.js';
export * from './parse.js';
export * from './protocol.js';
export { isDeltaEvent, jsonBytes, splitDeltaEvent } from './sizing.js';
