import { Agent } from '../../core/agent.js';
import type { PostHook } from '../../core/hooks.js';
import type {
  JournalEntry,
  RunJournalStore,
  ToolCallOutcome,
  ToolEntry,
} from '../../core/journal.js';
import { openRunJournal } from '../../core/run-journal.js';
import type {
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
} from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { runWithToolContext, tryToolContext } from '../../core/tool-context.js';

type RunId = Pick<RunnerInput, 'sessionId' | 'runId'>;

/**
 * Puts a run journal in the tool context around a runner (what the Runtime does once it is given
 * a journal store): every call and every step of a stream sees `ctx.journal`, opened for replay.
 */
export class JournaledRunner<TNative> implements Runner<TNative> {
  readonly name: string;
  readonly supportsStreaming: boolean;
  readonly supportsPause: boolean;
  readonly reservedRunOptions: Runner<TNative>['reservedRunOptions'];
  readonly #inner: Runner<TNative>;
  readonly #store: RunJournalStore;

  constructor(inner: Runner<TNative>, store: RunJournalStore) {
    this.#inner = inner;
    this.#store = store;
    this.name = inner.name;
    this.supportsStreaming = inner.supportsStreaming;
    this.supportsPause = inner.supportsPause;
    this.reservedRunOptions = inner.reservedRunOptions;
  }

  /** The runner's own `run` where it has one (the port may drop it), else its stream drained. */
  async run(input: RunnerInput<TNative>): Promise<RunnerResult> {
    const run = (this.#inner as { run?: Runner<TNative>['run'] }).run?.bind(this.#inner);
    if (!run) return drain(this.stream(input));
    const ctx = await this.#context(input);
    return runWithToolContext(ctx, () => run(input));
  }

  stream(input: RunnerInput<TNative>): RunnerStream {
    return this.#stream(input, () => this.#inner.stream(input));
  }

  async resume(input: RunnerResumeInput<TNative>): Promise<RunnerResult> {
    const resume = this.#inner.resume?.bind(this.#inner);
    if (!resume) return drain(this.resumeStream(input));
    const ctx = await this.#context(input);
    return runWithToolContext(ctx, () => resume(input));
  }

  resumeStream(input: RunnerResumeInput<TNative>): RunnerStream {
    return this.#stream(input, () => this.#inner.resumeStream!(input));
  }

  async *#stream(input: RunId, start: () => RunnerStream): RunnerStream {
    const ctx = await this.#context(input);
    const inner = runWithToolContext(ctx, start);
    try {
      for (;;) {
        const step = await runWithToolContext(ctx, () => inner.next());
        if (step.done) return step.value;
        yield step.value;
      }
    } finally {
      await runWithToolContext(ctx, () => inner.return(undefined as never)).catch(() => undefined);
    }
  }

  async #context(input: RunId) {
    const ctx = tryToolContext();
    if (!ctx) throw new Error('JournaledRunner: no tool context (run it through a Runtime)');
    const journal = await openRunJournal({
      store: this.#store,
      sessionId: input.sessionId,
      runId: input.runId,
      replay: true,
    });
    return { ...ctx, journal };
  }
}

async function drain(stream: RunnerStream): Promise<RunnerResult> {
  for (;;) {
    const step = await stream.next();
    if (step.done) return step.value;
  }
}

/** The same agent, its runner journaled, with extra post-hooks (e.g. a simulated crash). */
export function journaledAgent<T>(
  agent: Agent<T>,
  store: RunJournalStore,
  postHooks: readonly PostHook[] = [],
): Agent<T> {
  return new Agent({
    name: agent.name,
    description: agent.description,
    runner: new JournaledRunner(agent.runner, store),
    native: agent.native,
    preHooks: agent.preHooks,
    postHooks: [...agent.postHooks, ...postHooks],
    runOptions: agent.runOptions,
    ...(agent.runOptionsFactory ? { runOptionsFactory: agent.runOptionsFactory } : {}),
  });
}

/**
 * A journal store whose next `finishCall` is lost, as when the process dies right after a tool
 * ran and before its outcome was written: the call stays `started`.
 */
export class LosingJournalStore implements RunJournalStore {
  readonly #inner: RunJournalStore;
  #loseNext = false;
  /** Every write, by kind, with the bytes of each recorded model response. */
  readonly writes = { model: [] as number[], start: 0, finish: 0 };

  constructor(inner: RunJournalStore) {
    this.#inner = inner;
  }

  loseNextOutcome(): void {
    this.#loseNext = true;
  }

  load(sessionId: string, runId: string): Promise<JournalEntry[]> {
    return this.#inner.load(sessionId, runId);
  }

  putModel(sessionId: string, runId: string, key: string, response: JsonValue): Promise<void> {
    this.writes.model.push(Buffer.byteLength(JSON.stringify(response)));
    return this.#inner.putModel(sessionId, runId, key, response);
  }

  startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
  ): Promise<{ won: true } | { won: false; entry: ToolEntry }> {
    this.writes.start += 1;
    return this.#inner.startCall(sessionId, runId, callId, tool);
  }

  async finishCall(
    sessionId: string,
    runId: string,
    callId: string,
    outcome: ToolCallOutcome,
  ): Promise<void> {
    this.writes.finish += 1;
    if (this.#loseNext) {
      this.#loseNext = false;
      throw new Error('simulated crash: the tool ran, its outcome was never written');
    }
    await this.#inner.finishCall(sessionId, runId, callId, outcome);
  }
}

/** A post-hook that fails the next turn after the runner finished, before the session save. */
export class CrashBeforeSave implements PostHook {
  readonly name = 'crash-before-save';
  #armed = false;

  arm(): void {
    this.#armed = true;
  }

  /** For a turn that may have failed earlier on its own (then the hook never ran). */
  disarm(): void {
    this.#armed = false;
  }

  onRun(): undefined {
    if (!this.#armed) return undefined;
    this.#armed = false;
    throw new Error('simulated crash after the run, before the session was saved');
  }
}
