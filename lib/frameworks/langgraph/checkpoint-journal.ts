import type { RunJournal } from '../../core/journal.js';
import { modelRequestKey } from '../../core/model-step.js';
import type { Decision } from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { type CheckpointSnapshot, CheckpointSnapshotSchema } from './checkpointer.js';

/**
 * A run's super-step checkpoints in its journal (LangGraph's own durability, on our store): the
 * checkpoint taken after a model step that called tools is recorded before the tools run, so a
 * retried attempt continues from it instead of asking the model again. Only those checkpoints:
 * a turn without tool calls writes nothing. Keys are numbered per scope (the run from its
 * requests, or one resume point), so a resume never continues from a pre-pause checkpoint.
 */
export class CheckpointJournal {
  readonly #journal: RunJournal;
  readonly #scope: string;
  #count = 0;

  constructor(
    journal: RunJournal,
    resume?: { pausedState: JsonValue; decisions: readonly Decision[] },
  ) {
    this.#journal = journal;
    this.#scope = resume ? modelRequestKey(resume, 'langgraph:resume') : 'langgraph:run';
  }

  /** The last checkpoint an earlier attempt recorded in this scope, if any. */
  latest(): CheckpointSnapshot | undefined {
    let latest: CheckpointSnapshot | undefined;
    for (;;) {
      const recorded = this.#journal.recordedModel(this.#key(this.#count + 1));
      if (recorded === undefined) return latest;
      latest = CheckpointSnapshotSchema.parse(recorded);
      this.#count += 1;
    }
  }

  record(snapshot: CheckpointSnapshot): Promise<void> {
    this.#count += 1;
    return this.#journal.recordModel(this.#key(this.#count), snapshot as unknown as JsonValue);
  }

  #key(n: number): string {
    return `${this.#scope}:checkpoint:${n}`;
  }
}
