import type { JsonValue } from './session.js';

/**
 * The run journal: what a run has done, in order, so a retried, redelivered or resumed run replays
 * it instead of doing it again (Temporal's event history, Lambda durable functions' checkpointed
 * steps). Two kinds of entries:
 *
 * - a model step: a model response, keyed by a hash of the request that produced it (the runner
 *   computes it), recorded only when a side effect follows (a tool call), so a turn without tool
 *   calls costs no extra request. On replay the framework sends the same request again (its
 *   earlier responses and tool outcomes were replayed too), the runner finds the recorded
 *   response and serves it instead of calling the model, so call ids stay the same. A key, not an
 *   ordinal: a resumed run does not repeat the model calls made before its pause.
 * - a tool call, keyed by the framework's call id: `started` (a conditional write before the tool
 *   runs) then `done` with its outcome. A call found `started` but not `done` on replay may have
 *   run (the process died during it): it is not run again unless the tool declares itself
 *   read-only or idempotent.
 *
 * Writes are folded (k tool calls cost at most k+1 writes): a model response and finished calls'
 * outcomes are held by the attempt and ride on its next write — the next call's conditional
 * start, or the one write when the runner ends (`RunJournal.flush`). A response is so still
 * written before the side effects it asks for; an outcome reaches the store before the turn's
 * outcome is stored, and a process that dies between a tool's completion and that write leaves
 * the call `started` (its outcome unknown on replay, the call not run again).
 */

/** What a tool declares about running it again (MCP tool annotations' vocabulary). */
export interface ToolEffects {
  /** Changes nothing: always safe to run again. */
  readonly readOnly?: boolean;
  /** Running it again with the same `idempotencyKey` has no further effect. */
  readonly idempotent?: boolean;
  /**
   * What a replay does with a call that started and never finished: `error` (default) gives the
   * model a `tool-outcome-unknown` error; `pause` pauses the run for a person to decide.
   */
  readonly onUnknownOutcome?: 'error' | 'pause';
}

export type ToolCallOutcome =
  | { readonly ok: true; readonly result: JsonValue }
  /** `error` is the model-visible error the call ended with (`{ kind, message }`). */
  | { readonly ok: false; readonly error: { readonly kind: string; readonly message: string } };

export type JournalEntry =
  | {
      readonly kind: 'model';
      /** The runner's key of the request (a hash of what the framework sent the model). */
      readonly key: string;
      /** The framework's own response, as JSON (each runner knows its shape). */
      readonly response: JsonValue;
      readonly at: number;
    }
  | {
      readonly kind: 'tool';
      readonly callId: string;
      readonly tool: string;
      readonly status: 'started' | 'done';
      readonly outcome?: ToolCallOutcome;
      /** When it started (epoch ms). */
      readonly at: number;
      /** When its outcome was recorded (epoch ms): the call's duration is `doneAt - at`. */
      readonly doneAt?: number;
    };

export type ToolEntry = Extract<JournalEntry, { kind: 'tool' }>;

export type CallState = 'none' | 'started' | 'done';

export interface ModelRecord {
  readonly key: string;
  readonly response: JsonValue;
}

export interface OutcomeRecord {
  readonly callId: string;
  readonly outcome: ToolCallOutcome;
  /** When the call finished (epoch ms): the outcome may be written later, with another write. */
  readonly doneAt?: number;
}

/** What an attempt recorded and has not written yet: written with its next write. */
export interface JournalRecords {
  readonly models?: readonly ModelRecord[];
  readonly outcomes?: readonly OutcomeRecord[];
}

/** Port implemented in memory (lib/stores/memory) and in DynamoDB (lib/stores/dynamodb). */
export interface RunJournalStore {
  /**
   * Every entry of one run: model steps, then tool calls, each by time; a call whose outcome was
   * written (with any later write) is `done`. Of two responses to one key the first wins.
   */
  load(sessionId: string, runId: string): Promise<JournalEntry[]>;
  /**
   * Conditionally marks a call started, writing `records` in the same request: both or neither.
   * `won: false` returns the entry that was there (the call started before, and maybe finished,
   * in an earlier attempt or another process); then `records` were not written.
   */
  startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ): Promise<{ won: true } | { won: false; entry: ToolEntry }>;
  /**
   * Writes records without starting a call: one request (more only for records over one item).
   * A model key already recorded keeps its first response.
   */
  record(sessionId: string, runId: string, records: JournalRecords): Promise<void>;
}

/**
 * One run's journal as runners and the tool layer see it (in `ToolContext.journal`): built by the
 * runtime per turn, with the entries loaded when the run may be a replay.
 */
export interface RunJournal {
  readonly sessionId: string;
  readonly runId: string;
  /**
   * The recorded response to the model request with this key (a hash the runner computes from
   * the request), if an earlier attempt recorded one: the runner serves it instead of calling
   * the model. `legacyKey`: the key the build before chained keys (request-key.ts) gave the same
   * request, asked only when this key misses and the journal holds keys of that form: a run
   * recorded before a deploy still replays after it.
   */
  recordedModel(key: string, legacyKey?: () => string): JsonValue | undefined;
  /**
   * Records a model response before the side effects it asks for run: held, and written with the
   * next call's start (or by `flush`), which is before the call runs.
   */
  recordModel(key: string, response: JsonValue): Promise<void>;
  /**
   * Writes what this attempt recorded and has not written yet (responses, outcomes): called by
   * the runtime when the runner ends, before the turn's outcome is stored. Nothing held: no write.
   */
  flush(): Promise<void>;
  /**
   * Runs one tool call at most once across attempts: a recorded outcome is returned (or its
   * error thrown as the model-visible error) without running; an unfinished one throws
   * `ToolOutcomeUnknown` (or pauses) unless `effects` allow running it again.
   */
  tool<T>(
    call: { readonly callId: string; readonly tool: string; readonly effects?: ToolEffects },
    run: () => Promise<T>,
  ): Promise<T>;
  /** Tool calls this run has made so far, over every attempt (durable run limits). */
  toolCalls(tool?: string): number;
  /**
   * Counts a call that never reached `tool()` (invalid arguments, a denial, a blocked call) in
   * `toolCalls` for this attempt; a call id already counted is not counted twice.
   */
  countCall(callId: string, tool: string): void;
  /**
   * Whether this attempt answered the call from the journal (an earlier attempt ran it): the
   * turn marks its `tool-call-result` event `replayed`. Optional for journals outside the kernel.
   */
  replayed?(callId: string): boolean;
  /** The recorded entry of a call (from an earlier attempt or this one), if any. */
  recordedCall(callId: string): ToolEntry | undefined;
  /**
   * Where a call stands: never started, `started` and unfinished (its outcome is unknown when an
   * earlier attempt left it so), or `done`. Runners ask before a framework's approval gate.
   */
  callState(callId: string): CallState;
  /** The stable key a tool passes to downstream APIs: the same for every attempt of one call. */
  idempotencyKey(callId: string): string;
}
