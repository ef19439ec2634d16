import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingApprovalIndex, PendingApprovalPosition } from '../../app/ports/approvals.js';
import { type PausedRun, PausedRunSchema } from '../../core/paused-run.js';
import { parsePausedRun } from '../../core/paused-run-migrations.js';
import {
  DEFAULT_RESUME_CLAIM_MS,
  InvalidRecord,
  type PausedRunClaim,
  type PausedRunClaimOptions,
  PausedRunNotFound,
  type PausedRunStore,
  RecordCorrupt,
  RunAlreadyResumed,
} from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson } from '../json.js';
import { addToIndex, indexedOf, pagePending, removeFromIndex } from './approval-index.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { chunkKeys, decode, encode, readChunks, writeChunks } from './codec.js';
import { keys } from './table.js';

const LIMIT = 350_000;

/**
 * Paused runs as `SESSION#<id>/PAUSED#<runId>`. `status` is a plain attribute so the claim is
 * one conditional update, with the claim's `claimToken` and `claimedUntil` (epoch ms) next to it,
 * outside the versioned record; the rest is the record's JSON (brotli when large, chunked as
 * `PAUSEDSTATE#<runId>#<generation>#<n>` past 350 KB, a prefix `PAUSED#` queries never match).
 * Each run has its pending-approval index items (approval-index.ts), written first, removed after.
 */
export class DynamoPausedRunStore
  extends DynamoBase
  implements PausedRunStore, PendingApprovalIndex
{
  async put(run: PausedRun): Promise<void> {
    const parsed = PausedRunSchema.safeParse(run);
    if (!parsed.success) {
      throw new InvalidRecord('paused run', parsed.error.issues[0]?.message ?? 'invalid');
    }
    const { status, ...rest } = parsed.data;
    let json: string;
    try {
      json = toStoredJson(rest);
    } catch (err) {
      throw new InvalidRecord('paused run', jsonProblem(err));
    }
    const encoded = encode(json);
    const pk = keys.session(run.sessionId);
    const expiresAt = Math.ceil(run.expiresAt / 1000);
    const item: Record<string, unknown> = {
      pk,
      sk: keys.paused(run.runId),
      status,
      agent: run.agent,
      sessionId: run.sessionId,
      runId: run.runId,
      owner: run.owner,
      createdAt: run.createdAt,
      enc: encoded.enc,
      expiresAt,
    };
    if (encoded.size <= LIMIT) {
      item.body = encoded.body;
    } else {
      const gen = randomUUID().slice(0, 8);
      const prefix = chunkPrefix(run.runId, gen);
      const bytes = encoded.body as Uint8Array;
      Object.assign(item, {
        gen,
        chunks: await writeChunks(this, pk, prefix, bytes, LIMIT, expiresAt),
      });
    }
    await addToIndex(this, run, expiresAt);
    const { Attributes } = await this.doc.send(
      new PutCommand({ TableName: this.table, Item: item, ReturnValues: 'ALL_OLD' }),
    );
    // The same run paused again: the earlier pause's index items go.
    const old =
      Attributes && indexedOf({ ...Attributes, sessionId: run.sessionId, runId: run.runId });
    if (old && (old.createdAt !== run.createdAt || old.owner !== run.owner)) {
      await removeFromIndex(this, old);
    }
  }

  pending(options: { owner?: string; limit: number; after?: PendingApprovalPosition }) {
    return pagePending(this, options);
  }

  async get(sessionId: string, runId: string): Promise<PausedRun | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: keys.session(sessionId), sk: keys.paused(runId) },
        ConsistentRead: true,
      }),
    );
    if (!Item || this.expired(Item)) return undefined;
    return this.#parse(sessionId, runId, Item);
  }

  async list(sessionId: string): Promise<PausedRun[]> {
    const runs: PausedRun[] = [];
    for await (const item of this.queryPrefix(keys.session(sessionId), keys.pausedPrefix, {
      consistent: true,
    })) {
      if (this.expired(item)) continue;
      runs.push(await this.#parse(sessionId, String(item.sk).slice(7), item));
    }
    return runs.sort((a, b) => a.createdAt - b.createdAt);
  }

  async claim(
    sessionId: string,
    runId: string,
    options: PausedRunClaimOptions = {},
  ): Promise<PausedRunClaim> {
    const token = randomUUID();
    const now = this.now();
    const claimedUntil = now + (options.claimMs ?? DEFAULT_RESUME_CLAIM_MS);
    try {
      // ALL_OLD: the body is unchanged by the update, and the old status tells a takeover.
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: keys.paused(runId) },
          UpdateExpression:
            'SET #status = :resuming, claimToken = :token, claimedUntil = :claimedUntil',
          // A `resuming` item without claimedUntil (written before claims lapsed) stays held.
          ConditionExpression:
            'expiresAt > :nowSec AND ' +
            '(#status = :pending OR (#status = :resuming AND claimedUntil <= :now))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':resuming': 'resuming',
            ':pending': 'pending',
            ':token': token,
            ':claimedUntil': claimedUntil,
            ':now': now,
            ':nowSec': this.nowSeconds(),
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const old = Attributes ?? {};
      const run = await this.#parse(sessionId, runId, { ...old, status: 'resuming', claimedUntil });
      return { run, token, claimedUntil, takeover: old.status === 'resuming' };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // Tell "someone else resumed it" from "it is not there".
      const run = await this.get(sessionId, runId);
      if (!run) throw new PausedRunNotFound(sessionId, runId);
      throw new RunAlreadyResumed(sessionId, runId);
    }
  }

  async release(sessionId: string, runId: string, token: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: keys.paused(runId) },
          UpdateExpression: 'SET #status = :pending REMOVE claimToken, claimedUntil',
          // Only our own claim: after a takeover the new holder's stays.
          ConditionExpression: '#status = :resuming AND claimToken = :token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':resuming': 'resuming',
            ':pending': 'pending',
            ':token': token,
          },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  async delete(sessionId: string, runId: string): Promise<void> {
    const pk = keys.session(sessionId);
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.table,
        Key: { pk, sk: keys.paused(runId) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const indexed = Attributes && indexedOf({ ...Attributes, sessionId, runId });
    if (indexed) await removeFromIndex(this, indexed);
    if (typeof Attributes?.gen === 'string' && typeof Attributes.chunks === 'number') {
      await this.deleteQuietly(
        chunkKeys(pk, chunkPrefix(runId, Attributes.gen), Attributes.chunks),
      );
    }
  }

  async #parse(sessionId: string, runId: string, item: Record<string, unknown>) {
    const corrupt = (detail: string) => new RecordCorrupt('paused run', runId, detail);
    let body: unknown = item.body;
    if (typeof item.gen === 'string' && typeof item.chunks === 'number') {
      const prefix = chunkPrefix(runId, item.gen);
      body = await readChunks(this, keys.session(sessionId), prefix, item.chunks);
      if (body === undefined) throw corrupt('its state chunks are missing');
    }
    let value: unknown;
    try {
      value = parseStoredJson(decode(item.enc, body));
    } catch (err) {
      throw corrupt(jsonProblem(err));
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw corrupt('not a JSON object');
    }
    // A lapsed claim reads as pending: it can be claimed again.
    const lapsed =
      item.status === 'resuming' &&
      typeof item.claimedUntil === 'number' &&
      item.claimedUntil <= this.now();
    // Checks the schema and migrates older versions forward.
    const run = parsePausedRun({ ...value, status: lapsed ? 'pending' : item.status }, runId);
    if (run.sessionId !== sessionId || run.runId !== runId) {
      throw corrupt('it belongs to another session or run');
    }
    return run;
  }
}

function chunkPrefix(runId: string, gen: string): string {
  return `PAUSEDSTATE#${runId}#${gen}#`;
}
