import type { ContentBlockData, Storage } from '@strands-agents/sdk';
import * as z from 'zod';
import { RunnerError, SessionCorrupt } from '../../core/errors.js';
import type { Request } from '../../core/requests.js';
import type { JsonValue } from '../../core/session.js';

/**
 * This runner's slot of the session, and a paused run's state: what Strands' own
 * `SessionManager` wrote to its storage during the turn (snapshot_latest, manifest), key by key,
 * as the exact text it wrote.
 */
const SlotSchema = z.object({
  schemaVersion: z.literal(1),
  entries: z.record(z.string(), z.string()),
});

/**
 * Strands' `Storage` over our session slot: seeded from the slot when a turn starts, read back
 * into the slot when it ends, so the SessionManager's snapshots live in our session store (the
 * DynamoDB table on AWS) and are written only when the turn succeeds.
 */
export class SessionSlotStorage implements Storage {
  readonly #entries = new Map<string, string>();

  constructor(entries: Readonly<Record<string, string>> = {}) {
    for (const [key, text] of Object.entries(entries)) this.#entries.set(key, text);
  }

  static fromSlot(sessionId: string, slot: JsonValue | undefined, what: string) {
    if (slot === undefined) return new SessionSlotStorage();
    const parsed = SlotSchema.safeParse(slot);
    if (!parsed.success) {
      throw new SessionCorrupt(sessionId, `strands ${what}: ${parsed.error.issues[0]?.message}`);
    }
    return new SessionSlotStorage(parsed.data.entries);
  }

  async write(key: string, data: Uint8Array): Promise<void> {
    this.#entries.set(key, new TextDecoder().decode(data));
  }

  async read(key: string): Promise<Uint8Array | null> {
    const text = this.#entries.get(key);
    return text === undefined ? null : new TextEncoder().encode(text);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.#entries.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  /** The slot to store (entries sorted, so equal states serialise equally). */
  toSlot(): JsonValue {
    const sorted = [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1));
    return { schemaVersion: 1, entries: Object.fromEntries(sorted) };
  }

  /** Rewrites every stored JSON document (edited tool arguments in a paused snapshot). */
  mapJson(edit: (value: unknown) => unknown): void {
    for (const [key, text] of this.#entries) {
      try {
        this.#entries.set(key, JSON.stringify(edit(JSON.parse(text))));
      } catch {
        // Not JSON: nothing of ours to edit in it.
      }
    }
  }
}

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

/** All requests of a turn as the content blocks of one user message. */
export function toUserContent(requests: readonly Request[]): ContentBlockData[] {
  return requests.map((request): ContentBlockData => {
    if (request.type === 'text') return { text: request.text };
    if ('url' in request) {
      throw new RunnerError(
        `The strands runner takes ${request.type}s as data, not by URL (${request.url}).`,
        { code: 'unsupported-request' },
      );
    }
    const bytes = new Uint8Array(Buffer.from(request.data, 'base64'));
    const subtype = request.mimeType.split('/')[1] ?? '';
    if (request.type === 'image') {
      const format = subtype === 'jpg' ? 'jpeg' : subtype;
      if (!IMAGE_FORMATS.has(format)) {
        throw new RunnerError(`Bedrock does not take ${request.mimeType} images.`, {
          code: 'unsupported-request',
        });
      }
      return { image: { format: format as 'png', source: { bytes } } };
    }
    return {
      document: {
        name: documentName(request.name),
        format: documentFormat(subtype),
        source: { bytes },
      },
    } as ContentBlockData;
  });
}

/** Bedrock takes letters, digits, spaces, hyphens, parentheses and brackets: no extension. */
function documentName(name: string | undefined): string {
  const base = (name ?? '').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9\s()[\]-]/g, '-');
  return base.trim() || 'document';
}

function documentFormat(subtype: string): string {
  if (subtype === 'plain') return 'txt';
  if (subtype === 'markdown') return 'md';
  return subtype;
}
