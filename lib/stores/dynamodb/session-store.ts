import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { SessionConflict, SessionCorrupt } from '../../core/errors.js';
import {
  SESSION_SCHEMA_VERSION,
  type SessionData,
  SessionDataSchema,
  type SessionStore,
  type StoredSession,
} from '../../core/session.js';
import { InvalidRecord } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson } from '../json.js';
import { DynamoBase, type DynamoStoreOptions, isConditionFailed } from './base.js';
import { chunkKeys, decode, encode, readChunks, writeChunks } from './codec.js';
import { keys } from './table.js';

export interface DynamoSessionStoreOptions extends DynamoStoreOptions {
  /** Encoded state up to this size stays in the head item: one read, one write per turn. */
  inlineLimit?: number;
  /** Size of a state chunk item when the state is larger (items are limited to 400 KB). */
  chunkSize?: number;
  compressAbove?: number;
}

const LIMIT = 350_000;

/** The head item's attributes, checked before anything is decoded. */
const HeadSchema = z.object({
  version: z.number().int().positive(),
  enc: z.enum(['json', 'br', 'gzip']),
  body: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
  chunks: z.number().int().positive().max(10_000).optional(),
  gen: z.string().min(1).optional(),
});
type Head =
  | { version: number; enc: string; body: string | Uint8Array; chunks?: undefined }
  | { version: number; enc: string; body?: undefined; chunks: number; gen: string };

/**
 * Sessions in DynamoDB. The head item `SESSION#<id>/META` carries the version, a few plain
 * attributes for operators, and the state (JSON, brotli past 2 KB) while it fits; larger state
 * goes to chunk items `STATE#<generation>#<n>`, written before the head whose conditional put
 * commits them. A generation is unique per write, so readers never mix two writers' chunks.
 */
export class DynamoSessionStore extends DynamoBase implements SessionStore {
  readonly #inlineLimit: number;
  readonly #chunkSize: number;
  readonly #compressAbove: number | undefined;
  /** The chunks each loaded head points to, to clean up once a save replaces them. */
  readonly #loadedChunks = new Map<string, { version: number; gen: string; count: number }>();

  constructor(options: DynamoSessionStoreOptions) {
    super(options);
    this.#inlineLimit = options.inlineLimit ?? LIMIT;
    this.#chunkSize = options.chunkSize ?? LIMIT;
    this.#compressAbove = options.compressAbove;
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const pk = keys.session(sessionId);
    // A save may replace the chunks between our two reads: then the head is read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.table, Key: { pk, sk: keys.meta }, ConsistentRead: true }),
      );
      if (!Item || this.expired(Item)) return undefined;
      const head = parseHead(sessionId, Item);
      let body: unknown = head.body;
      if (head.chunks !== undefined) {
        body = await this.#chunks(sessionId, pk, head.gen, head.chunks);
        if (body === undefined) continue;
        this.#remember(sessionId, { version: head.version, gen: head.gen, count: head.chunks });
      } else {
        this.#loadedChunks.delete(sessionId);
      }
      return { data: parseState(sessionId, head.enc, body), version: head.version };
    }
    throw new SessionCorrupt(sessionId, 'its state chunks are missing');
  }

  async save(data: SessionData, expectedVersion: number): Promise<number> {
    let json: string;
    try {
      json = toStoredJson(data);
    } catch (err) {
      throw new InvalidRecord('session', jsonProblem(err));
    }
    const encoded = encode(json, this.#compressAbove);
    const pk = keys.session(data.id);
    const version = expectedVersion + 1;
    const expiresAt = this.expiry();
    const item: Record<string, unknown> = {
      pk,
      sk: keys.meta,
      version,
      enc: encoded.enc,
      size: encoded.size,
      owner: data.owner,
      agent: data.agent,
      turns: data.turns,
      updatedAt: data.updatedAt,
      expiresAt,
    };
    let gen: string | undefined;
    let count = 0;
    if (encoded.size <= this.#inlineLimit) {
      item.body = encoded.body;
    } else {
      gen = `${version}.${randomUUID().slice(0, 8)}`;
      const bytes = encoded.body as Uint8Array;
      count = await writeChunks(this, pk, keys.stateChunks(gen), bytes, this.#chunkSize, expiresAt);
      Object.assign(item, { gen, chunks: count });
    }
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ...(expectedVersion === 0
            ? {
                ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
                ExpressionAttributeValues: { ':now': this.nowSeconds() },
              }
            : {
                ConditionExpression:
                  '#version = :expected AND (attribute_not_exists(expiresAt) OR expiresAt > :now)',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: {
                  ':expected': expectedVersion,
                  ':now': this.nowSeconds(),
                },
              }),
        }),
      );
    } catch (err) {
      // The losing writer's chunks were never committed: remove them.
      if (gen) await this.deleteQuietly(chunkKeys(pk, keys.stateChunks(gen), count));
      if (isConditionFailed(err)) throw new SessionConflict(data.id, expectedVersion);
      throw err;
    }
    await this.#dropReplacedChunks(data.id, expectedVersion, gen);
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    const pk = keys.session(sessionId);
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk: keys.meta } }));
    const chunks: { pk: string; sk: string }[] = [];
    for await (const item of this.queryPrefix(pk, 'STATE#', { projection: 'pk, sk' })) {
      chunks.push({ pk, sk: String(item.sk) });
    }
    this.#loadedChunks.delete(sessionId);
    await this.deleteQuietly(chunks);
  }

  async #chunks(sessionId: string, pk: string, gen: string, count: number) {
    try {
      return await readChunks(this, pk, keys.stateChunks(gen), count);
    } catch (err) {
      throw new SessionCorrupt(sessionId, (err as Error).message);
    }
  }

  #remember(sessionId: string, chunks: { version: number; gen: string; count: number }): void {
    // Bounded: a warm Lambda serves many sessions; a forgotten entry only leaves work to TTL.
    if (this.#loadedChunks.size >= 1000) this.#loadedChunks.clear();
    this.#loadedChunks.set(sessionId, chunks);
  }

  /** Best effort, after the head moved on: readers of the old head retry from the new one. */
  async #dropReplacedChunks(sessionId: string, replaced: number, kept?: string): Promise<void> {
    const old = this.#loadedChunks.get(sessionId);
    this.#loadedChunks.delete(sessionId);
    if (!old || old.version !== replaced || old.gen === kept) return;
    await this.deleteQuietly(
      chunkKeys(keys.session(sessionId), keys.stateChunks(old.gen), old.count),
    );
  }
}

function parseHead(sessionId: string, item: Record<string, unknown>): Head {
  const parsed = HeadSchema.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SessionCorrupt(
      sessionId,
      `bad head item (${issue?.path.join('.')}: ${issue?.message})`,
    );
  }
  const { version, enc, body, chunks, gen } = parsed.data;
  if (body !== undefined && chunks === undefined) return { version, enc, body };
  if (body === undefined && chunks !== undefined && gen !== undefined) {
    return { version, enc, chunks, gen };
  }
  throw new SessionCorrupt(sessionId, 'bad head item (needs either a body or chunks and gen)');
}

function parseState(sessionId: string, enc: string, body: unknown): SessionData {
  let value: unknown;
  try {
    value = parseStoredJson(decode(enc, body));
  } catch (err) {
    throw new SessionCorrupt(sessionId, jsonProblem(err));
  }
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== SESSION_SCHEMA_VERSION) {
    throw new SessionCorrupt(
      sessionId,
      `unknown schemaVersion ${JSON.stringify(version)} (this build reads ${SESSION_SCHEMA_VERSION})`,
    );
  }
  const parsed = SessionDataSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SessionCorrupt(sessionId, `${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  if (parsed.data.id !== sessionId) {
    throw new SessionCorrupt(sessionId, `it holds session "${parsed.data.id}"`);
  }
  return parsed.data;
}
