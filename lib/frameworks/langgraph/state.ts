import { HumanMessage } from '@langchain/core/messages';
import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import type { Request } from '../../core/requests.js';
import type { JsonValue } from '../../core/session.js';
import { type CheckpointSnapshot, CheckpointSnapshotSchema } from './checkpointer.js';

/** This runner's session slot: the thread's latest checkpoint. */
const SlotSchema = z.object({ schemaVersion: z.literal(1), checkpoints: CheckpointSnapshotSchema });

/** A paused run: the checkpoint with its interrupt writes, and our ids for LangGraph's. */
const PausedSchema = SlotSchema.extend({
  interrupts: z.array(z.object({ id: z.string(), interruptId: z.string(), kind: z.string() })),
});

export type PausedInterrupt = z.infer<typeof PausedSchema>['interrupts'][number];

export function loadSlot(
  sessionId: string,
  state: JsonValue | undefined,
): CheckpointSnapshot | undefined {
  if (state === undefined) return undefined;
  // The schema's check by hand (the usual case): its walk and copy ran on every turn.
  if (isSlot(state)) return state.checkpoints as CheckpointSnapshot;
  const parsed = SlotSchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `langgraph state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data.checkpoints;
}

type Loose = Record<string, unknown>;

/**
 * A slot exactly as `SlotSchema` takes it, with no key the schema would strip: then its data is
 * the value itself. Anything else goes to the schema (which strips, or words the refusal).
 */
function isSlot(value: unknown): value is { checkpoints: unknown } {
  if (!hasKeys(value, 2) || value.schemaVersion !== 1) return false;
  const snapshot = value.checkpoints;
  if (!hasKeys(snapshot, 2) || snapshot.schemaVersion !== 1) return false;
  return Array.isArray(snapshot.entries) && snapshot.entries.every(isEntry);
}

function isEntry(entry: unknown): boolean {
  if (!isObject(entry)) return false;
  const parent = 'parentId' in entry;
  return (
    hasKeys(entry, parent ? 6 : 5) &&
    typeof entry.ns === 'string' &&
    typeof entry.id === 'string' &&
    (!parent || typeof entry.parentId === 'string') &&
    isSerialized(entry.checkpoint) &&
    isSerialized(entry.metadata) &&
    Array.isArray(entry.writes) &&
    entry.writes.every(isWrite)
  );
}

function isWrite(write: unknown): boolean {
  return (
    hasKeys(write, 5) &&
    typeof write.taskId === 'string' &&
    typeof write.idx === 'number' &&
    Number.isFinite(write.idx) &&
    typeof write.channel === 'string' &&
    typeof write.taskPath === 'string' &&
    isSerialized(write.value)
  );
}

function isSerialized(value: unknown): boolean {
  if (!hasKeys(value, 2) || typeof value.type !== 'string') return false;
  if (value.type !== 'json') return typeof value.base64 === 'string';
  return typeof value.text === 'string' || ('json' in value && value.json !== undefined);
}

/** A plain object, as JSON.parse makes them (anything else: the schema makes one). */
function isObject(value: unknown): value is Loose {
  return (
    value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype
  );
}

function hasKeys(value: unknown, count: number): value is Loose {
  return isObject(value) && Object.keys(value).length === count;
}

export function toSlot(checkpoints: CheckpointSnapshot): JsonValue {
  return { schemaVersion: 1, checkpoints } as unknown as JsonValue;
}

export function toPaused(
  checkpoints: CheckpointSnapshot,
  interrupts: PausedInterrupt[],
): JsonValue {
  return { schemaVersion: 1, checkpoints, interrupts } as unknown as JsonValue;
}

export function loadPaused(
  sessionId: string,
  state: JsonValue,
): { checkpoints: CheckpointSnapshot; interrupts: PausedInterrupt[] } {
  const parsed = PausedSchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `langgraph paused run: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data;
}

/** All requests of a turn become one human message; text alone stays a plain string. */
export function toHumanMessage(requests: readonly Request[]): HumanMessage {
  const only = requests[0];
  if (requests.length === 1 && only?.type === 'text') return new HumanMessage(only.text);
  const content = requests.map((request) => {
    if (request.type === 'text') return { type: 'text' as const, text: request.text };
    const url = 'url' in request ? request.url : `data:${request.mimeType};base64,${request.data}`;
    if (request.type === 'image') return { type: 'image_url' as const, image_url: { url } };
    // LangChain's standard file block: each chat model maps it to its provider's file part.
    const metadata = request.name ? { metadata: { filename: request.name } } : {};
    return 'url' in request
      ? { type: 'file' as const, source_type: 'url' as const, url: request.url, ...metadata }
      : {
          type: 'file' as const,
          source_type: 'base64' as const,
          data: request.data,
          mime_type: request.mimeType,
          ...metadata,
        };
  });
  return new HumanMessage({ content });
}
