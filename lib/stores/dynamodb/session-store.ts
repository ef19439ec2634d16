import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { SessionConflict, SessionCorrupt } from '../../core/errors.js';
import { lazySchema } from '../../core/lazy-schema.js';
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
import { type CachedSession, SessionCache } from './session-cache.js';
import {
  dropLog,
  extractLogs,
  type LogHead,
  LogHeadSchema,
  type Logs,
  planLog,
  readLogs,
  restoreLogs,
} from './session-log.js';
import { writeSegment } from './session-segments.js';
import { keys } from './table.js';

/*
 * Key scheme of a session (partition `SESSION#<id>`, docs/architecture.md "Sessions"):
 *   META                                  the head: `version`, `log` {gen, last, segs, exp, paths},
 *                                         the skeleton (`enc` + `body`, or `gen` + `chunks`),
 *                                         plain `owner`, `agent`, `turns`, `updatedAt`, `expiresAt`
 *   STATE#<gen>#<nnnn>                    skeleton chunks past 350 KB (as before)
 *   TURN#<loggen>#<vvvvvvvvvv>.<rand>#<nnnn>  turn items: what one save appended to the logs
 *   LEASE, PAUSED#…, RUN#…, LEDGER#…, JOURNAL#…  unchanged
 * A head without `log` is the old single-item layout: it loads, and its next save writes the new one.
 */

export interface DynamoSessionStoreOptions extends DynamoStoreOptions {
  /** Encoded skeleton up to this size stays in the head item. */
  inlineLimit?: number;
  /** Size of a chunk or turn-item part (items are limited to 400 KB). */
  chunkSize?: number;
  compressAbove?: number;
  /** Warm-instance cache of loaded sessions, in JSON bytes (default 64 MB; 0: none). */
  cacheBytes?: number;
  /** A log generation is rewritten whole (brotli, one item) past this many turn items (default 64): it bounds what a cold instance reads. */
  maxSegments?: number;
}

const LIMIT = 350_000;

/** The head item's attributes, checked before anything is decoded. */
const HeadSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    version: z.number().check(z.int(), z.positive()),
    enc: z.enum(['json', 'br', 'gzip']),
    body: z.optional(z.union([z.string(), z.instanceof(Uint8Array)])),
    chunks: z.optional(z.number().check(z.int(), z.positive(), z.lte(10_000))),
    gen: z.optional(z.string().check(z.minLength(1))),
    log: z.optional(LogHeadSchema),
  }),
);
type Head = { version: number; enc: string; log?: LogHead | undefined } & (
  | { body: string | Uint8Array; chunks?: undefined }
  | { body?: undefined; chunks: number; gen: string }
);

/**
 * Sessions in DynamoDB: history is append-only turn items with a small versioned head, so a
 * turn on a warm instance reads the head's version (the cache holds the rest) and writes what
 * it added plus the head, whatever the session's length. A cold instance reads the whole once.
 * The head's conditional put commits a save; racing writers lose with `SessionConflict`.
 */
export class DynamoSessionStore extends DynamoBase implements SessionStore {
  readonly #inlineLimit: number;
  readonly #chunkSize: number;
  readonly #compressAbove: number | undefined;
  readonly #maxSegments: number;
  readonly #cache: SessionCache;
  /** The skeleton chunks each loaded head points to, to clean up once a save replaces them. */
  readonly #loadedChunks = new Map<string, { version: number; gen: string; count: number }>();

  constructor(options: DynamoSessionStoreOptions) {
    super(options);
    this.#inlineLimit = options.inlineLimit ?? LIMIT;
    this.#chunkSize = options.chunkSize ?? LIMIT;
    this.#compressAbove = options.compressAbove;
    this.#maxSegments = options.maxSegments ?? 64;
    this.#cache = new SessionCache(options.cacheBytes ?? 64 * 1024 * 1024);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const pk = keys.session(sessionId);
    const warm = await this.#warm(sessionId, pk);
    if (warm) return warm;
    // A save may replace the chunks or the log between our reads: then the head is read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.table, Key: { pk, sk: keys.meta }, ConsistentRead: true }),
      );
      if (!Item || this.expired(Item)) {
        this.#cache.delete(sessionId);
        return undefined;
      }
      const head = parseHead(sessionId, Item);
      let body: unknown = head.body;
      if (head.chunks !== undefined) {
        body = await this.#chunks(sessionId, pk, head.gen, head.chunks);
        if (body === undefined) continue;
        this.#remember(sessionId, { version: head.version, gen: head.gen, count: head.chunks });
      } else {
        this.#loadedChunks.delete(sessionId);
      }
      const data = parseState(sessionId, head.enc, body);
      const prior = this.#cache.get(sessionId);
      const logs = head.log
        ? await readLogs(this, { sessionId, pk, log: head.log, skeleton: data, prior })
        : new Map();
      if (!logs) continue;
      if (!restoreLogs(data, logs)) throw new SessionCorrupt(sessionId, 'a log has no place');
      const entry = cached(head.version, head.log, data, logs, Item.expiresAt);
      this.#cache.set(sessionId, entry);
      return { data: structuredClone(data), version: head.version };
    }
    throw new SessionCorrupt(sessionId, 'its state chunks are missing (or its turn items)');
  }

  async save(data: SessionData, expectedVersion: number): Promise<number> {
    let json: string;
    try {
      json = toStoredJson(data);
    } catch (err) {
      throw new InvalidRecord('session', jsonProblem(err));
    }
    const pk = keys.session(data.id);
    const version = expectedVersion + 1;
    const expiresAt = this.expiry();
    const prior = this.#cache.get(data.id);
    const base = prior?.version === expectedVersion ? prior : undefined;
    // The skeleton: a private copy with the logs taken out.
    const skeleton = JSON.parse(json) as SessionData;
    const logs = extractLogs(skeleton, new Set(base?.logs.keys()));
    const plan = planLog(base, logs, version, skeleton, {
      nowSeconds: this.nowSeconds(),
      ttlSeconds: this.ttlSeconds,
      maxSegments: this.#maxSegments,
    });
    const encoded = encode(toStoredJson(skeleton), this.#compressAbove);
    const log: LogHead = {
      gen: plan.gen,
      last: plan.segment?.id ?? plan.last,
      segs: plan.segs,
      exp: plan.exp,
      paths: Object.fromEntries([...logs].map(([id, l]) => [id, l.items.length])),
    };
    const item: Record<string, unknown> = {
      pk,
      sk: keys.meta,
      version,
      enc: encoded.enc,
      size: encoded.size,
      log,
      owner: data.owner,
      agent: data.agent,
      turns: data.turns,
      updatedAt: data.updatedAt,
      expiresAt,
    };
    const written: { pk: string; sk: string }[] = [];
    let gen: string | undefined;
    let count = 0;
    try {
      if (plan.segment) {
        const limits = { chunkSize: this.#chunkSize, compressAbove: this.#compressAbove };
        // A turn item outlives the head by a TTL: the generation is rewritten before it lapses.
        const segmentExpiry = expiresAt + this.ttlSeconds;
        written.push(
          ...(await writeSegment(this, pk, plan.gen, plan.segment, {
            ...limits,
            expiresAt: segmentExpiry,
          })),
        );
      }
      if (encoded.size <= this.#inlineLimit) {
        item.body = encoded.body;
      } else {
        gen = `${version}.${randomUUID().slice(0, 8)}`;
        const bytes = encoded.body as Uint8Array;
        count = await writeChunks(
          this,
          pk,
          keys.stateChunks(gen),
          bytes,
          this.#chunkSize,
          expiresAt,
        );
        written.push(...chunkKeys(pk, keys.stateChunks(gen), count));
        Object.assign(item, { gen, chunks: count });
      }
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: item, ...this.#guard(expectedVersion) }),
      );
    } catch (err) {
      // What the losing writer wrote was never committed: remove it.
      this.#cache.delete(data.id);
      await this.deleteQuietly(written);
      if (isConditionFailed(err)) throw new SessionConflict(data.id, expectedVersion);
      throw err;
    }
    await this.#dropReplacedChunks(data.id, expectedVersion, gen);
    if (gen) this.#remember(data.id, { version, gen, count });
    if (base?.gen && base.gen !== plan.gen) await dropLog(this, pk, base.gen);
    restoreLogs(skeleton, logs);
    this.#cache.set(data.id, cached(version, log, skeleton, logs, expiresAt, json.length));
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    const pk = keys.session(sessionId);
    this.#cache.delete(sessionId);
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk: keys.meta } }));
    const items: { pk: string; sk: string }[] = [];
    for (const prefix of ['STATE#', keys.turnPrefix]) {
      for await (const item of this.queryPrefix(pk, prefix, { projection: 'pk, sk' })) {
        items.push({ pk, sk: String(item.sk) });
      }
    }
    this.#loadedChunks.delete(sessionId);
    await this.deleteQuietly(items);
  }

  /** The cached session when the head's version (a small projected read) says it is current. */
  async #warm(sessionId: string, pk: string): Promise<StoredSession | undefined> {
    const entry = this.#cache.get(sessionId);
    if (!entry) return undefined;
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk, sk: keys.meta },
        ConsistentRead: true,
        // Not `expiresAt`: at the cached version it is the one the cache holds.
        ProjectionExpression: 'version, #l.gen',
        ExpressionAttributeNames: { '#l': 'log' },
      }),
    );
    const gen = (Item?.log as { gen?: unknown } | undefined)?.gen;
    if (!Item || Item.version !== entry.version || gen !== entry.gen) return undefined;
    if (this.expired({ expiresAt: entry.expiresAt })) {
      this.#cache.delete(sessionId);
      return undefined;
    }
    return { data: structuredClone(entry.data), version: entry.version };
  }

  /** Short names and placeholders: this condition travels with every turn's head write. */
  #guard(expectedVersion: number) {
    return expectedVersion === 0
      ? {
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :n',
          ExpressionAttributeValues: { ':n': this.nowSeconds() },
        }
      : {
          ConditionExpression:
            'version = :v AND (attribute_not_exists(expiresAt) OR expiresAt > :n)',
          ExpressionAttributeValues: { ':v': expectedVersion, ':n': this.nowSeconds() },
        };
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

function cached(
  version: number,
  log: LogHead | undefined,
  data: SessionData,
  logs: Logs,
  expiresAt: unknown,
  bytes = 0,
): CachedSession {
  return {
    version,
    expiresAt: typeof expiresAt === 'number' ? expiresAt : undefined,
    gen: log?.gen,
    last: log?.last ?? '',
    segs: log?.segs ?? 0,
    exp: log?.exp ?? 0,
    data,
    logs,
    bytes: bytes || JSON.stringify(data).length,
  };
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
  const { version, enc, body, chunks, gen, log } = parsed.data;
  if (body !== undefined && chunks === undefined) return { version, enc, body, log };
  if (body === undefined && chunks !== undefined && gen !== undefined) {
    return { version, enc, chunks, gen, log };
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
