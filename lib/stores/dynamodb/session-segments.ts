import { createHash, randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { boundTo } from '../../core/ownership.js';
import type { JsonValue } from '../../core/session.js';
import { parseStoredJson, toStoredJson } from '../json.js';
import type { DynamoBase } from './base.js';
import { decode, type Encoded, encode } from './codec.js';
import { keys } from './table.js';

/**
 * The turn items of a session's logs (session-log.ts): one segment per save that appended
 * anything, holding `{ [logPath]: appendedItems }`, split into parts past the item size limit.
 * Each segment names the one before it (`prev`), so a reader follows the chain back from the
 * head's `last` and ignores segments no head committed (a conflict's loser, a crash before the
 * head's write). Each part carries a tag of the session's owner and incarnation it was written
 * for (`b`, bindingTag).
 *
 * Attributes, short because a turn writes one such item (docs/benchmarks.md "Session growth"):
 * `d` the (part of the) encoded content, `e` its encoding unless json, `n` the part count unless
 * 1, `p` the previous segment's id unless none, `b` the binding tag unless the session has none,
 * `expiresAt`. Items of the first layout (`data`, `enc`, `parts`, `prev`, `owner`,
 * `incarnation`) still read.
 */

export interface SegmentBinding {
  owner?: string | undefined;
  incarnation?: string | undefined;
}

export interface Segment {
  id: string;
  prev: string;
  content: Record<string, JsonValue[]>;
  /** What it was written for: the owner and incarnation (first layout) or their tag. */
  binding: SegmentBinding | { tag: string };
}

/** A short digest of a session life's owner and incarnation, what a turn item carries. */
export function bindingTag(binding: SegmentBinding): string | undefined {
  if (binding.owner === undefined && binding.incarnation === undefined) return undefined;
  const life = JSON.stringify([binding.owner ?? null, binding.incarnation ?? null]);
  return createHash('sha256').update(life).digest('base64url').slice(0, 12);
}

/** Whether a turn item was written for the life `session` (its owner and incarnation) is in. */
export function segmentBound(binding: Segment['binding'], session: SegmentBinding): boolean {
  if (!('tag' in binding)) return boundTo(binding, session);
  return binding.tag === (bindingTag(session) ?? '');
}

/** Below this, a turn's JSON is stored as is: brotli's frame and base64 would not pay. */
const TRY_COMPRESS_FROM = 512;

/**
 * A turn item is written once and read rarely: compressed whenever that makes it smaller (as
 * billed: binary counts its bytes; on the wire it travels as base64), not only past the store's
 * `compressAbove` (COMPRESS_ABOVE), unless the caller set that threshold.
 */
function encodeTurn(json: string, compressAbove: number | undefined): Encoded {
  const plain = encode(json, compressAbove);
  if (compressAbove !== undefined || plain.enc !== 'json' || plain.size < TRY_COMPRESS_FROM) {
    return plain;
  }
  const packed = encode(json, 0);
  return Math.ceil(packed.size / 3) * 4 < plain.size ? packed : plain;
}

/** A new segment id: the head version it commits, then a random part unique per writer. */
export function segmentId(version: number): string {
  return `${versionKey(version)}.${randomUUID().slice(0, 8)}`;
}

export function versionKey(version: number): string {
  return String(version).padStart(10, '0');
}

export async function writeSegment(
  base: DynamoBase,
  pk: string,
  gen: string,
  segment: Segment,
  limits: { chunkSize: number; compressAbove?: number | undefined; expiresAt: number },
): Promise<{ pk: string; sk: string }[]> {
  const encoded = encodeTurn(toStoredJson(segment.content), limits.compressAbove);
  const tag = 'tag' in segment.binding ? segment.binding.tag : bindingTag(segment.binding);
  const bodies: (string | Uint8Array)[] = [];
  if (typeof encoded.body === 'string') bodies.push(encoded.body);
  else {
    const bytes = encoded.body;
    for (let at = 0; at < bytes.length; at += limits.chunkSize) {
      bodies.push(bytes.subarray(at, at + limits.chunkSize));
    }
  }
  const written: { pk: string; sk: string }[] = [];
  for (const [n, data] of bodies.entries()) {
    const key = { pk, sk: `${keys.turnLog(gen)}${segment.id}#${String(n).padStart(4, '0')}` };
    await base.doc.send(
      new PutCommand({
        TableName: base.table,
        Item: {
          ...key,
          d: data,
          ...(encoded.enc === 'json' ? {} : { e: encoded.enc }),
          ...(bodies.length === 1 ? {} : { n: bodies.length }),
          ...(segment.prev ? { p: segment.prev } : {}),
          ...(tag === undefined ? {} : { b: tag }),
          expiresAt: limits.expiresAt,
        },
      }),
    );
    written.push(key);
  }
  return written;
}

/**
 * The segments of generation `gen` committed after segment `after` (or all), strongly
 * consistent, oldest first, following the chain back from `last`. Undefined when the chain is
 * broken (a compaction replaced the generation while we read): the caller reads the head again.
 */
export async function readSegments(
  base: DynamoBase,
  pk: string,
  gen: string,
  last: string,
  after?: { id: string; version: number },
): Promise<Segment[] | undefined> {
  const prefix = keys.turnLog(gen);
  const found = new Map<string, Segment>();
  const parts = new Map<string, { enc: unknown; parts: unknown[]; count: number }>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await base.doc.send(
      new QueryCommand({
        TableName: base.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':from': `${prefix}${after ? versionKey(after.version + 1) : ''}`,
          ':to': `${prefix}~`,
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) collect(item, prefix, found, parts);
    start = page.LastEvaluatedKey;
  } while (start);
  const chain: Segment[] = [];
  const stop = after?.id ?? '';
  for (let id = last; id !== stop; ) {
    const segment = found.get(id);
    if (!segment) return undefined;
    chain.push(segment);
    id = segment.prev;
  }
  return chain.reverse();
}

function collect(
  item: Record<string, unknown>,
  prefix: string,
  found: Map<string, Segment>,
  parts: Map<string, { enc: unknown; parts: unknown[]; count: number }>,
): void {
  const rest = String(item.sk).slice(prefix.length);
  const id = rest.slice(0, rest.lastIndexOf('#'));
  // `d` (this layout) or `data` (the first one): see the header.
  const first = item.d === undefined;
  const entry = parts.get(id) ?? {
    enc: first ? item.enc : (item.e ?? 'json'),
    parts: [],
    count: Number((first ? item.parts : item.n) ?? 1),
  };
  parts.set(id, entry);
  entry.parts.push(first ? item.data : item.d);
  if (entry.parts.length !== entry.count) return;
  const body =
    entry.parts.length === 1
      ? entry.parts[0]
      : Buffer.concat(entry.parts.filter((p): p is Uint8Array => p instanceof Uint8Array));
  const content = parseStoredJson(decode(entry.enc, body)) as Record<string, JsonValue[]>;
  found.set(id, {
    id,
    prev: String((first ? item.prev : item.p) ?? ''),
    content,
    binding: first
      ? {
          ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
          ...(typeof item.incarnation === 'string' ? { incarnation: item.incarnation } : {}),
        }
      : { tag: typeof item.b === 'string' ? item.b : '' },
  });
}
