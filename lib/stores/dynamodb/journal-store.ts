import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type {
  JournalEntry,
  JournalRecords,
  RunJournalStore,
  ToolCallOutcome,
} from '../../core/journal.js';
import type { JsonValue } from '../../core/session.js';
import { RecordCorrupt } from '../../core/stores.js';
import { DynamoBase, isConditionFailed } from './base.js';
import {
  carryAttributes,
  checkRecords,
  encodeBody,
  hasRecords,
  JournalItems,
  MAX_BODY_BYTES,
  packOutcomes,
} from './journal-items.js';
import { keys } from './table.js';

const CONDITION = 'attribute_not_exists(pk) OR expiresAt <= :nowSec';

function fits(bodies: unknown[]): boolean {
  let size = 0;
  for (const body of bodies) {
    size += typeof body === 'string' ? Buffer.byteLength(body) : (body as Uint8Array).length;
  }
  return size <= MAX_BODY_BYTES;
}

/**
 * Run journals under the session's partition: `JOURNAL#<runId>#T#<callId>` (a call's start),
 * `JOURNAL#<runId>#M#<key>` (a model response) and `JOURNAL#<runId>#R#<time>#<id>` (records
 * alone). Records an attempt holds (responses, outcomes) ride on its next write in the same item
 * (`carryEnc`, `carryBody`): a call start is one conditional put that carries them (all or
 * nothing, no transaction needed), the runner's last records one put, a run's journal one Query.
 */
export class DynamoRunJournalStore extends DynamoBase implements RunJournalStore {
  async load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    const items = new JournalItems();
    const pk = keys.session(sessionId);
    for await (const item of this.queryPrefix(pk, keys.journalPrefix(runId), {
      consistent: true,
    })) {
      // A '#' inside a run id could widen the prefix match: keep exactly that run.
      if (this.expired(item) || item.runId !== runId) continue;
      items.add(item);
    }
    return items.entries();
  }

  async startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ) {
    let carry: Record<string, unknown> = {};
    if (hasRecords(records)) {
      checkRecords(records);
      const attributes = carryAttributes(records);
      // Too much for one item with the start: written first, then the start alone.
      if (attributes === undefined) await this.record(sessionId, runId, records);
      else carry = attributes;
    }
    const item = { kind: 'tool', runId, callId, tool, status: 'started', ...carry };
    if (await this.#putNew(sessionId, keys.journalCall(runId, callId), item)) {
      return { won: true as const };
    }
    // Lost: another attempt started this call; one consistent read tells how far it got (its
    // outcome may ride on a later item of the run).
    const entry = (await this.load(sessionId, runId)).find(
      (e) => e.kind === 'tool' && e.callId === callId,
    );
    if (entry?.kind !== 'tool') {
      throw new RecordCorrupt('journal call', callId, 'vanished after a conflict');
    }
    return { won: false as const, entry };
  }

  async record(sessionId: string, runId: string, records: JournalRecords): Promise<void> {
    if (!hasRecords(records)) return;
    checkRecords(records);
    let outcomes: JournalRecords = { outcomes: records.outcomes ?? [] };
    for (const { key, response } of records.models ?? []) {
      const { enc, body } = encodeBody('model response', response);
      // The first response's item carries the outcomes when they fit beside it.
      let carry = outcomes.outcomes?.length ? carryAttributes(outcomes) : undefined;
      if (carry && !fits([body, carry.carryBody])) carry = undefined;
      const item = { kind: 'model', runId, key, enc, body, ...carry };
      const won = await this.#putNew(sessionId, keys.journalModel(runId, key), item);
      // Lost: recorded already, the first response stays the run's answer to this request (and
      // the outcomes it would have carried go on).
      if (won && carry) outcomes = { outcomes: [] };
    }
    // Ids in time order, packs of one write in their order (a Query reads them so).
    const writeId = `${String(this.now()).padStart(15, '0')}#${randomBytes(6).toString('hex')}`;
    for (const [n, pack] of packOutcomes(outcomes).entries()) {
      const id = `${writeId}#${String(n).padStart(4, '0')}`;
      await this.#putNew(sessionId, `${keys.journalPrefix(runId)}R#${id}`, {
        kind: 'records',
        runId,
        ...carryAttributes(pack),
      });
    }
  }

  /** One model response, as one write (tests, tools). */
  putModel(sessionId: string, runId: string, key: string, response: JsonValue): Promise<void> {
    return this.record(sessionId, runId, { models: [{ key, response }] });
  }

  /** One call's outcome, as one write (tests, tools). */
  finishCall(sessionId: string, runId: string, callId: string, outcome: ToolCallOutcome) {
    return this.record(sessionId, runId, { outcomes: [{ callId, outcome }] });
  }

  /** A conditional put of a new item (or over an expired one); false when one is there. */
  async #putNew(sessionId: string, sk: string, item: Record<string, unknown>): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: keys.session(sessionId),
            sk,
            ...item,
            at: this.now(),
            expiresAt: this.expiry(),
          },
          ConditionExpression: CONDITION,
          ExpressionAttributeValues: { ':nowSec': this.nowSeconds() },
        }),
      );
      return true;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return false;
    }
  }
}
