import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  compareWritesSortKeys,
  copyCheckpoint,
  type PendingWrite,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import * as z from 'zod';

/**
 * A serialised value: the serde's JSON kept as its text (`text`; snapshots written before kept
 * it parsed, `json`, and still load), anything else as base64.
 */
const SerializedSchema = z.union([
  z.object({ type: z.literal('json'), text: z.string() }),
  z.object({ type: z.literal('json'), json: z.unknown() }),
  z.object({ type: z.string(), base64: z.string() }),
]);
type Serialized = z.infer<typeof SerializedSchema>;

const WriteSchema = z.object({
  taskId: z.string(),
  idx: z.number(),
  channel: z.string(),
  value: SerializedSchema,
  taskPath: z.string(),
});

const EntrySchema = z.object({
  ns: z.string(),
  id: z.string(),
  parentId: z.string().optional(),
  checkpoint: SerializedSchema,
  metadata: SerializedSchema,
  writes: z.array(WriteSchema),
});
type Entry = z.infer<typeof EntrySchema>;
/** A value as the serde dumped it; made JSON only if a snapshot takes it (most never are). */
type Dumped = Serialized | { readonly type: string; readonly bytes: Uint8Array };
type HeldWrite = Omit<Entry['writes'][number], 'value'> & { value: Dumped };
type Held = Omit<Entry, 'checkpoint' | 'metadata' | 'writes'> & {
  checkpoint: Dumped;
  metadata: Dumped;
  writes: HeldWrite[];
};

/** What a session slot or a paused run holds: the latest checkpoint of each namespace, as JSON. */
export const CheckpointSnapshotSchema = z.object({
  schemaVersion: z.literal(1),
  entries: z.array(EntrySchema),
});
export type CheckpointSnapshot = z.infer<typeof CheckpointSnapshotSchema>;

/**
 * A LangGraph checkpoint saver for one run of one thread, seeded from (and written back to) our
 * stores: the runner loads the session's snapshot, the graph runs, and `snapshot()` becomes the
 * session slot or the paused run's state — so on AWS checkpoints live in the DynamoDB table,
 * inside the session item, and are written only when the turn succeeds or pauses.
 */
export class SessionCheckpointSaver extends BaseCheckpointSaver {
  readonly #entries = new Map<string, Held>();
  readonly #onToolCalls: ((snapshot: CheckpointSnapshot) => Promise<void>) | undefined;
  /** A task wrote a message with tool calls: the next root checkpoint precedes the tools. */
  #toolCallsPending = false;
  /** The newest root checkpoint this run put, as LangGraph handed it (not dumped). */
  #latestRoot: Checkpoint | undefined;

  /**
   * `onToolCalls` receives the snapshot at every root checkpoint that follows a model message
   * with tool calls, before those tools run (with `durability: 'sync'` LangGraph awaits it).
   */
  constructor(
    snapshot?: CheckpointSnapshot,
    onToolCalls?: (snapshot: CheckpointSnapshot) => Promise<void>,
  ) {
    super();
    this.#onToolCalls = onToolCalls;
    // Shallow copies: `putWrites` replaces an entry's writes, never the loaded session's.
    for (const entry of snapshot?.entries ?? []) {
      this.#entries.set(key(entry.ns, entry.id), { ...entry });
    }
  }

  /** The latest checkpoint of every namespace with its pending writes (enough to go on). */
  snapshot(): CheckpointSnapshot {
    const latest = new Map<string, Held>();
    for (const entry of this.#entries.values()) {
      const current = latest.get(entry.ns);
      if (!current || entry.id > current.id) latest.set(entry.ns, entry);
    }
    // Parents are dropped: a turn continues from the latest checkpoint only.
    const entries = [...latest.values()].map(
      ({ parentId: _parent, checkpoint, metadata, writes, ...rest }): Entry => ({
        ...rest,
        checkpoint: serialized(checkpoint),
        metadata: serialized(metadata),
        writes: writes.map((w) => ({ ...w, value: serialized(w.value) })),
      }),
    );
    return { schemaVersion: 1, entries };
  }

  /**
   * The root channel values of the newest checkpoint this run put, the state `getState` would
   * load back (no pending writes remain once a run has completed); undefined before any put.
   */
  latestRootValues(): Readonly<Record<string, unknown>> | undefined {
    return this.#latestRoot?.channel_values;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const ns = namespace(config);
    const id = config.configurable?.checkpoint_id as string | undefined;
    const entry = id ? this.#entries.get(key(ns, id)) : this.#sorted(ns)[0];
    return entry ? this.#tuple(config, entry) : undefined;
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const only = config.configurable?.checkpoint_id as string | undefined;
    const before = options.before?.configurable?.checkpoint_id as string | undefined;
    let left = options.limit ?? Number.POSITIVE_INFINITY;
    for (const entry of this.#sorted(ns)) {
      if (left <= 0) return;
      if (only && entry.id !== only) continue;
      if (before && entry.id >= before) continue;
      const tuple = await this.#tuple(config, entry);
      const filter = options.filter ?? {};
      if (
        !Object.entries(filter).every(
          ([k, v]) => (tuple.metadata as Record<string, unknown> | undefined)?.[k] === v,
        )
      )
        continue;
      left -= 1;
      yield tuple;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _versions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const ns = namespace(config);
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    if (ns === '' && (!this.#latestRoot || checkpoint.id > this.#latestRoot.id)) {
      this.#latestRoot = checkpoint;
    }
    this.#entries.set(key(ns, checkpoint.id), {
      ns,
      id: checkpoint.id,
      ...(parentId ? { parentId } : {}),
      checkpoint: await this.#dump(copyCheckpoint(checkpoint)),
      metadata: await this.#dump(metadata),
      writes: [],
    });
    if (ns === '' && this.#toolCallsPending && this.#onToolCalls) {
      this.#toolCallsPending = false;
      await this.#onToolCalls(this.snapshot());
    }
    return {
      configurable: {
        thread_id: config.configurable?.thread_id,
        checkpoint_ns: ns,
        checkpoint_id: checkpoint.id,
      },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const entry = this.#entries.get(key(namespace(config), config.configurable?.checkpoint_id));
    if (!entry) throw new Error('putWrites: no such checkpoint in this run');
    if (writes.some(([channel, value]) => channel === 'messages' && hasToolCalls(value))) {
      this.#toolCallsPending = true;
    }
    const stored = await Promise.all(
      writes.map(async ([channel, value], i) => ({
        taskId,
        idx: (WRITES_IDX_MAP as Record<string, number>)[channel] ?? i,
        channel,
        value: await this.#dump(value),
        taskPath: taskPath ?? '',
      })),
    );
    for (const write of stored) {
      // Like LangGraph's own savers: a regular write is stored once per task and index.
      const exists = entry.writes.some((w) => w.taskId === taskId && w.idx === write.idx);
      if (write.idx >= 0 && exists) continue;
      entry.writes = entry.writes.filter((w) => !(w.taskId === taskId && w.idx === write.idx));
      entry.writes.push(write);
    }
  }

  async deleteThread(_threadId: string): Promise<void> {
    this.#entries.clear();
  }

  #sorted(ns: string | undefined): Held[] {
    return [...this.#entries.values()]
      .filter((e) => ns === undefined || e.ns === ns)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  async #tuple(config: RunnableConfig, entry: Held): Promise<CheckpointTuple> {
    const thread_id = config.configurable?.thread_id;
    const writes = [...entry.writes].sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
    return {
      config: { configurable: { thread_id, checkpoint_ns: entry.ns, checkpoint_id: entry.id } },
      checkpoint: await this.#load<Checkpoint>(entry.checkpoint),
      metadata: await this.#load<CheckpointMetadata>(entry.metadata),
      pendingWrites: (await Promise.all(
        writes.map(async (w) => [w.taskId, w.channel, await this.#load(w.value)] as const),
      )) as CheckpointTuple['pendingWrites'],
      ...(entry.parentId
        ? {
            parentConfig: {
              configurable: { thread_id, checkpoint_ns: entry.ns, checkpoint_id: entry.parentId },
            },
          }
        : {}),
    };
  }

  async #dump(value: unknown): Promise<Dumped> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    return { type, bytes };
  }

  /** The value `#dump` stored; the caller names what that was (the serde returns it untyped). */
  #load<T = unknown>(value: Dumped): Promise<T> {
    if ('bytes' in value) return this.serde.loadsTyped(value.type, value.bytes);
    if ('text' in value) return this.serde.loadsTyped('json', value.text);
    if ('json' in value) return this.serde.loadsTyped('json', JSON.stringify(value.json));
    return this.serde.loadsTyped(value.type, Buffer.from(value.base64, 'base64'));
  }
}

/**
 * A dumped value as a snapshot holds it: the serde's JSON as its text, anything else as base64.
 * Text, not a parsed tree: no parse here nor stringify on the next load, and a session store
 * copies a string by reference where it walked every node of the checkpoint.
 */
function serialized(value: Dumped): Serialized {
  if (!('bytes' in value)) return value;
  const { type, bytes } = value;
  // A view on the serde's bytes, not a copy of them.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'json') return { type, text: buffer.toString('utf8') };
  return { type, base64: buffer.toString('base64') };
}

function hasToolCalls(value: unknown): boolean {
  const messages = Array.isArray(value) ? value : [value];
  return messages.some(
    (m) => ((m as { tool_calls?: unknown[] } | null)?.tool_calls?.length ?? 0) > 0,
  );
}

function namespace(config: RunnableConfig): string {
  return (config.configurable?.checkpoint_ns as string | undefined) ?? '';
}

function key(ns: string, id: unknown): string {
  return `${ns}\u0000${String(id)}`;
}
