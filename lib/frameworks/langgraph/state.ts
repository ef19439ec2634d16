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
  const parsed = SlotSchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `langgraph state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data.checkpoints;
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
