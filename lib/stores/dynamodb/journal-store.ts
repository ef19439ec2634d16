import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  JournalEntry,
  RunJournalStore,
  ToolCallOutcome,
  ToolEntry,
} from '../../core/journal.js';
import type { JsonValue } from '../../core/session.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson, UnsafeJson } from '../json.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { decode, encode } from './codec.js';
import { keys } from './table.js';

/** Room left in a 400 KB item for keys and attributes. */
const MAX_BODY_BYTES = 380_000;

/**
 * Run journals under the session's partition: `JOURNAL#<runId>#M#<key>` (a model response) and
 * `JOURNAL#<runId>#T#<callId>` (a tool call). A model response or a call start is one conditional
 * put (first writer wins), a call's outcome one update, a run's whole journal one Query.
 */
export class DynamoRunJournalStore extends DynamoBase implements RunJournalStore {
  async load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    const models: JournalEntry[] = [];
    const calls: ToolEntry[] = [];
    const pk = keys.session(sessionId);
    for await (const item of this.queryPrefix(pk, keys.journalPrefix(runId), {
      consistent: true,
    })) {
      // A '#' inside a run id could widen the prefix match: keep exactly that run.
      if (this.expired(item) || item.runId !== runId) continue;
      const entry = this.#entry(item);
      if (entry.kind === 'model') models.push(entry);
      else calls.push(entry);
    }
    const byTime = (a: JournalEntry, b: JournalEntry) => a.at - b.at;
    return [...models.sort(byTime), ...calls.sort(byTime)];
  }

  async putModel(sessionId: string, runId: string, key: string, response: JsonValue) {
    const body = this.#encode('model response', response);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: keys.session(sessionId),
            sk: keys.journalModel(runId, key),
            kind: 'model',
            runId,
            key,
            at: this.now(),
            ...body,
            expiresAt: this.expiry(),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :nowSec',
          ExpressionAttributeValues: { ':nowSec': this.nowSeconds() },
        }),
      );
    } catch (err) {
      // Recorded already: the first response stays the run's answer to this request.
      if (!isConditionFailed(err)) throw err;
    }
  }

  async startCall(sessionId: string, runId: string, callId: string, tool: string) {
    const Key = { pk: keys.session(sessionId), sk: keys.journalCall(runId, callId) };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...Key,
            kind: 'tool',
            runId,
            callId,
            tool,
            status: 'started',
            at: this.now(),
            expiresAt: this.expiry(),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :nowSec',
          ExpressionAttributeValues: { ':nowSec': this.nowSeconds() },
        }),
      );
      return { won: true as const };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    // Lost: another attempt started this call; one consistent read tells how far it got.
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key, ConsistentRead: true }),
    );
    if (!Item) throw new RecordCorrupt('journal call', callId, 'vanished after a conflict');
    return { won: false as const, entry: this.#entry(Item) as ToolEntry };
  }

  async finishCall(sessionId: string, runId: string, callId: string, outcome: ToolCallOutcome) {
    const body = this.#encode('tool outcome', outcome);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: keys.session(sessionId), sk: keys.journalCall(runId, callId) },
        // Every attribute by name: some (`body`, `kind`) may be reserved words.
        UpdateExpression:
          'SET #status = :done, #enc = :enc, #body = :body, #exp = :exp, ' +
          '#kind = if_not_exists(#kind, :tool), #runId = if_not_exists(#runId, :runId), ' +
          '#callId = if_not_exists(#callId, :callId), #tool = if_not_exists(#tool, :unknown), ' +
          '#at = if_not_exists(#at, :at), #doneAt = :at',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#enc': 'enc',
          '#body': 'body',
          '#exp': 'expiresAt',
          '#kind': 'kind',
          '#runId': 'runId',
          '#callId': 'callId',
          '#tool': 'tool',
          '#at': 'at',
          '#doneAt': 'doneAt',
        },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':enc': body.enc,
          ':body': body.body,
          ':exp': this.expiry(),
          ':tool': 'tool',
          ':runId': runId,
          ':callId': callId,
          ':unknown': 'unknown',
          ':at': this.now(),
        },
      }),
    );
  }

  #encode(kind: string, value: unknown): { enc: string; body: string | Uint8Array } {
    let json: string;
    try {
      json = toStoredJson(value);
    } catch (err) {
      throw new InvalidRecord(
        `journal ${kind}`,
        err instanceof UnsafeJson ? err.message : 'not JSON',
      );
    }
    const encoded = encode(json);
    if (encoded.size > MAX_BODY_BYTES) {
      throw new InvalidRecord(`journal ${kind}`, `${encoded.size} bytes is over ${MAX_BODY_BYTES}`);
    }
    return { enc: encoded.enc, body: encoded.body };
  }

  #entry(item: Record<string, unknown>): JournalEntry {
    const name = String(item.sk);
    const body = (): unknown => {
      try {
        return parseStoredJson(decode(item.enc, item.body));
      } catch (err) {
        throw new RecordCorrupt('journal entry', name, jsonProblem(err));
      }
    };
    const at = typeof item.at === 'number' ? item.at : 0;
    if (item.kind === 'model' && typeof item.key === 'string') {
      return { kind: 'model', key: item.key, response: body() as JsonValue, at };
    }
    if (item.kind !== 'tool' || typeof item.callId !== 'string') {
      throw new RecordCorrupt('journal entry', name, `unknown kind ${String(item.kind)}`);
    }
    const tool = String(item.tool);
    if (item.status === 'started') {
      return { kind: 'tool', callId: item.callId, tool, status: 'started', at };
    }
    if (item.status !== 'done') {
      throw new RecordCorrupt('journal entry', name, `unknown status ${String(item.status)}`);
    }
    const outcome = body() as ToolCallOutcome;
    const doneAt = typeof item.doneAt === 'number' ? { doneAt: item.doneAt } : {};
    return { kind: 'tool', callId: item.callId, tool, status: 'done', outcome, at, ...doneAt };
  }
}
