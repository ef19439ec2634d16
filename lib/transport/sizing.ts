import type { StreamEvent } from '../core/events.js';

/** API Gateway's WebSocket frame limit: nothing inbound may be larger (protocol.ts exports it). */
export const MAX_INBOUND_BYTES = 128 * 1024;

/** UTF-8 bytes of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** The marker a schema puts on an issue that is a size limit: the gate answers `too-large`. */
export const TOO_LARGE_ISSUE = { gate: 'too-large' } as const;

type DeltaEvent = Extract<StreamEvent, { delta: string }>;

/** The events whose text may be cut into several events with the same ids. */
export function isDeltaEvent(event: StreamEvent): event is DeltaEvent {
  return (
    event.type === 'text-delta' ||
    event.type === 'tool-call-args' ||
    event.type === 'reasoning-delta'
  );
}

/** Smallest room for delta text worth splitting into; below it an event is sent whole. */
const MIN_DELTA_BUDGET = 64;

/**
 * Cuts a delta event so each piece serialises to at most `maxBytes`, never inside a code point.
 * Returns the event alone when it fits or when the other fields leave no room for text.
 */
export function splitDeltaEvent(event: DeltaEvent, maxBytes: number): DeltaEvent[] {
  const budget = maxBytes - jsonBytes({ ...event, delta: '' });
  if (budget < MIN_DELTA_BUDGET || jsonBytes(event) <= maxBytes) return [event];
  const { delta } = event;
  const pieces: DeltaEvent[] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < delta.length; ) {
    const cp = delta.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const cost = escapedBytes(cp);
    if (used + cost > budget) {
      pieces.push({ ...event, delta: delta.slice(start, i) });
      start = i;
      used = 0;
    }
    used += cost;
    i += width;
  }
  pieces.push({ ...event, delta: delta.slice(start) });
  return pieces;
}

/** Bytes one code point takes inside a JSON string as JSON.stringify writes it. */
function escapedBytes(cp: number): number {
  if (cp === 0x22 || cp === 0x5c) return 2;
  if (cp < 0x20) return cp === 8 || cp === 9 || cp === 10 || cp === 12 || cp === 13 ? 2 : 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  // A lone surrogate is written as \uXXXX.
  if (cp >= 0xd800 && cp <= 0xdfff) return 6;
  return cp < 0x10000 ? 3 : 4;
}
