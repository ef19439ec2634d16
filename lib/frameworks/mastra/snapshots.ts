import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import type { WorkflowRunState } from '@mastra/core/workflows';
import type { MastraNativeAgent } from './native.js';
import type { StoredSnapshot } from './state.js';

/** The workflows an agent's run suspends in (its execution workflow and agentic loop). */
const AGENT_WORKFLOWS = ['executionWorkflow', 'agentic-loop'] as const;

type WorkflowsStore = NonNullable<Awaited<ReturnType<InMemoryStore['getStore']>>> & {
  persistWorkflowSnapshot(args: {
    workflowName: string;
    runId: string;
    snapshot: WorkflowRunState;
  }): Promise<void>;
  loadWorkflowSnapshot(args: { workflowName: string; runId: string }): Promise<unknown>;
  deleteWorkflowRunById(args: { workflowName: string; runId: string }): Promise<void>;
};

/** Mastras this runner registered (their in-memory store is emptied after every turn). */
const owned = new WeakSet<object>();
/** One store per agent, however many of its first turns start at once. */
const given = new WeakMap<object, InMemoryStore>();

/** Registers the agent on a Mastra with an in-memory store: its runs then persist snapshots there. */
function ownStorage(agent: MastraNativeAgent): InMemoryStore {
  let storage = given.get(agent);
  if (!storage) {
    storage = new InMemoryStore({ id: 'agent-kernel' });
    given.set(agent, storage);
    // Mastra hands the storage back wrapped: ownership is known by the Mastra instance.
    owned.add(new Mastra({ agents: { [agent.id]: agent }, storage, logger: false }));
  }
  return storage;
}

/**
 * Mastra keeps a suspended run's workflow snapshots in its storage. Our paused-run store is where
 * a paused run lives: when a run suspends, its snapshots are copied out into the paused state;
 * a resume writes them back first, so any process (a fresh Lambda) resumes it. An agent without a
 * Mastra of its own gets one with an in-memory store, emptied of a run's rows once the turn ends.
 */
export class RunSnapshots {
  readonly #agent: MastraNativeAgent;

  constructor(agent: MastraNativeAgent) {
    this.#agent = agent;
  }

  /** Gives the agent a storage before its run starts, so the run's snapshots are kept. */
  async prepare(): Promise<void> {
    await this.#store();
  }

  async export(runId: string): Promise<StoredSnapshot[]> {
    const store = await this.#store();
    const found = await Promise.all(
      AGENT_WORKFLOWS.map(async (workflowName) => {
        const snapshot = await store.loadWorkflowSnapshot({ workflowName, runId });
        return snapshot ? [{ workflowName, snapshot: snapshot as Record<string, unknown> }] : [];
      }),
    );
    return found.flat();
  }

  async import(runId: string, snapshots: readonly StoredSnapshot[]): Promise<void> {
    const store = await this.#store();
    for (const { workflowName, snapshot } of snapshots) {
      // Stored as Mastra exported it (`export`): its own run state, read back as JSON.
      await store.persistWorkflowSnapshot({
        workflowName,
        runId,
        snapshot: snapshot as unknown as WorkflowRunState,
      });
    }
  }

  /** Forgets a run's snapshots when they live in our in-memory store (a warm Lambda stays small). */
  async release(runId: string): Promise<void> {
    const mastra = this.#agent.getMastraInstance();
    if (!mastra || !owned.has(mastra)) return;
    const store = await this.#store();
    await Promise.all(
      AGENT_WORKFLOWS.map((workflowName) => store.deleteWorkflowRunById({ workflowName, runId })),
    );
  }

  async #store(): Promise<WorkflowsStore> {
    const storage = this.#agent.getMastraInstance()?.getStorage() ?? ownStorage(this.#agent);
    const store = await storage.getStore('workflows');
    if (!store) throw new Error('The Mastra storage has no workflows domain.');
    return store as WorkflowsStore;
  }
}

/**
 * The snapshots with an approver's edited arguments written in wherever they hold the call (its
 * tool-call step input, pending approval and message parts): the approved call then runs with
 * them, and the history the model reads shows them, as if the model had sent them.
 */
export function withEditedArguments(
  snapshots: readonly StoredSnapshot[],
  edits: ReadonlyMap<string, unknown>,
): StoredSnapshot[] {
  if (edits.size === 0) return [...snapshots];
  return snapshots.map((s) => ({
    ...s,
    snapshot: edit(s.snapshot, edits) as Record<string, unknown>,
  }));
}

function edit(value: unknown, edits: ReadonlyMap<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => edit(item, edits));
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    // `pendingToolApprovals` is keyed by the call id.
    out[key] =
      key === 'pendingToolApprovals' && child && typeof child === 'object'
        ? editPending(child as Record<string, unknown>, edits)
        : edit(child, edits);
  }
  const id = node.toolCallId;
  if (typeof id !== 'string' || !edits.has(id)) return out;
  if ('args' in out) out.args = edits.get(id);
  if ('input' in out && out.type === 'tool-call') out.input = edits.get(id);
  return out;
}

function editPending(
  pending: Record<string, unknown>,
  edits: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(pending).map(([id, entry]) => {
      const edited = edit(entry, edits) as Record<string, unknown>;
      return [
        id,
        edits.has(id) && edited && 'args' in edited ? { ...edited, args: edits.get(id) } : edited,
      ];
    }),
  );
}
