import type {
  JournalEntry,
  JournalRecords,
  ModelRecord,
  ToolCallOutcome,
  ToolEntry,
} from '../../core/journal.js';
import type { JsonValue } from '../../core/session.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson, UnsafeJson } from '../json.js';
import { decode, encode } from './codec.js';

/** Room left in a 400 KB item for keys and attributes. */
export const MAX_BODY_BYTES = 380_000;

export interface Body {
  readonly enc: string;
  readonly body: string | Uint8Array;
  readonly size: number;
}

/** A value as an item attribute pair (`enc`, `body`); refused past the item limit. */
export function encodeBody(kind: string, value: unknown): Body {
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
  return { enc: encoded.enc, body: encoded.body, size: encoded.size };
}

/** Refuses a record that could never be written (each one must fit an item alone). */
export function checkRecords(records: JournalRecords): void {
  for (const { response } of records.models ?? []) encodeBody('model response', response);
  for (const { outcome } of records.outcomes ?? []) encodeBody('tool outcome', outcome);
}

export function hasRecords(records: JournalRecords | undefined): records is JournalRecords {
  return (records?.models?.length ?? 0) + (records?.outcomes?.length ?? 0) > 0;
}

/** Records carried by an item (`carryEnc`, `carryBody`), or undefined when they do not fit one. */
export function carryAttributes(records: JournalRecords): Record<string, unknown> | undefined {
  if (!hasRecords(records)) return {};
  let body: Body;
  try {
    body = encodeBody('records', records);
  } catch (err) {
    if (err instanceof InvalidRecord) return undefined;
    throw err;
  }
  return { carryEnc: body.enc, carryBody: body.body };
}

/** Outcomes packed into as few items as fit (each outcome fits one alone: checkRecords). */
export function packOutcomes(records: JournalRecords): JournalRecords[] {
  const packs: JournalRecords[] = [];
  let pack: JournalRecords['outcomes'] & unknown[] = [];
  let size = 0;
  for (const outcome of records.outcomes ?? []) {
    const bytes = Buffer.byteLength(toStoredJson(outcome));
    if (pack.length > 0 && size + bytes > MAX_BODY_BYTES) {
      packs.push({ outcomes: pack });
      pack = [];
      size = 0;
    }
    pack.push(outcome);
    size += bytes;
  }
  if (pack.length > 0) packs.push({ outcomes: pack });
  return packs;
}

/** One run's items, read back as entries: carried records applied, a key's first response kept. */
export class JournalItems {
  readonly #models: (ModelRecord & { at: number })[] = [];
  readonly #calls = new Map<string, ToolEntry>();
  readonly #outcomes: { callId: string; outcome: ToolCallOutcome; at: number; doneAt?: number }[] =
    [];

  add(item: Record<string, unknown>): void {
    const name = String(item.sk);
    const at = typeof item.at === 'number' ? item.at : 0;
    if (item.kind === 'model' && typeof item.key === 'string') {
      this.#models.push({ key: item.key, response: body(item, name) as JsonValue, at });
    } else if (item.kind === 'tool' && typeof item.callId === 'string') {
      this.#calls.set(item.callId, callEntry(item, name, at));
    } else if (item.kind !== 'records') {
      throw new RecordCorrupt('journal entry', name, `unknown kind ${String(item.kind)}`);
    }
    if (item.carryEnc === undefined) return;
    const carried = carriedRecords(item, name);
    for (const model of carried.models ?? []) this.#models.push({ ...model, at });
    for (const outcome of carried.outcomes ?? []) this.#outcomes.push({ ...outcome, at });
  }

  entries(): JournalEntry[] {
    const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;
    const models = new Map<string, JournalEntry>();
    for (const { key, response, at } of this.#models.sort(byTime)) {
      if (!models.has(key)) models.set(key, { kind: 'model', key, response, at });
    }
    for (const { callId, outcome, at, doneAt } of this.#outcomes) {
      const started = this.#calls.get(callId);
      this.#calls.set(callId, {
        kind: 'tool',
        callId,
        tool: started?.tool ?? 'unknown',
        status: 'done',
        outcome,
        at: started?.at ?? at,
        // The call's end as the attempt saw it; else when the outcome was written.
        doneAt: typeof doneAt === 'number' ? doneAt : at,
      });
    }
    return [...models.values(), ...[...this.#calls.values()].sort(byTime)];
  }
}

function body(item: Record<string, unknown>, name: string, enc = 'enc', key = 'body'): unknown {
  try {
    return parseStoredJson(decode(item[enc], item[key]));
  } catch (err) {
    throw new RecordCorrupt('journal entry', name, jsonProblem(err));
  }
}

function carriedRecords(item: Record<string, unknown>, name: string): JournalRecords {
  const value = body(item, name, 'carryEnc', 'carryBody') as JournalRecords | null;
  const fine =
    value !== null &&
    typeof value === 'object' &&
    (value.models === undefined || Array.isArray(value.models)) &&
    (value.outcomes === undefined || Array.isArray(value.outcomes));
  if (!fine) throw new RecordCorrupt('journal entry', name, 'carried records are not lists');
  return value;
}

/** A call's own item: `started` (new and old items), or `done` with its outcome (older items). */
function callEntry(item: Record<string, unknown>, name: string, at: number): ToolEntry {
  const callId = item.callId as string;
  const tool = String(item.tool);
  if (item.status === 'started') return { kind: 'tool', callId, tool, status: 'started', at };
  if (item.status !== 'done') {
    throw new RecordCorrupt('journal entry', name, `unknown status ${String(item.status)}`);
  }
  const outcome = body(item, name) as ToolCallOutcome;
  return { kind: 'tool', callId, tool, status: 'done', outcome, at };
}
