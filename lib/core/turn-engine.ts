import { BoundaryTracker } from './boundaries.js';
import { type AgentKernelError, RunnerError } from './errors.js';
import type { StreamEvent } from './events.js';
import type { RunJournal, RunJournalStore } from './journal.js';
import type { AgentReply, PausedReply, Reply } from './requests.js';
import { type PauseDeps, pauseTurn } from './resume.js';
import { openRunJournal } from './run-journal.js';
import type { RunnerResult, RunnerStream } from './runner.js';
import { checkRunnerEvent, isTokenEvent, textAsEvents } from './runner-events.js';
import type { SessionLock } from './session-lock.js';
import { runWithToolContext } from './tool-context.js';
import { noopTracer, type Span, type Tracer, withActiveSpan } from './tracer.js';
import {
  applyStreamHooks,
  completeTurn,
  hooksOf,
  normaliseRunError,
  type PreparedTurn,
  type TurnDeps,
  type TurnSetup,
} from './turn.js';

/** What every turn needs from the Runtime: one engine for run, stream, resume and resumeStream. */
export interface TurnEngine {
  readonly deps: TurnDeps;
  readonly pause: PauseDeps | undefined;
  readonly lock: SessionLock;
  readonly tracer: Tracer;
  /** Where runs record what they did, so a retry replays it (`ToolContext.journal`). */
  readonly journal?: RunJournalStore;
  /** Applied to every error message that leaves the runtime. */
  readonly redact?: (text: string) => string;
}

/** A prepared turn; a resume's also carries its claim on the paused run (`PreparedResume`). */
type Prepared = PreparedTurn & { readonly claim?: { readonly token: string } };
type Prepare = () => Promise<Prepared>;

/** How a driven turn ended, for `Runtime.run`, which drains the stream. */
export interface TurnOutcome {
  reply?: Reply;
  error?: AgentKernelError;
}

/** A failure as it leaves the runtime: typed, its message redacted. */
export function outgoingError(engine: TurnEngine, error: AgentKernelError): AgentKernelError {
  if (engine.redact) error.message = engine.redact(error.message);
  return error;
}

/** Drains a driven turn: the reply, or the turn's own typed error thrown. */
export async function drainTurn(
  turn: AsyncIterable<StreamEvent>,
  outcome: TurnOutcome,
): Promise<Reply> {
  for await (const _event of turn) {
    // Events are for streaming callers; the outcome carries the result.
  }
  if (outcome.error) throw outcome.error;
  if (!outcome.reply) throw new RunnerError('The turn ended without a reply.');
  return outcome.reply;
}

/**
 * The one turn driver (a new turn, or a resume started from its resume point): events ending with
 * exactly one of run-finished, run-paused or run-error. Open boundaries are closed before a
 * run-error; a consumer that stops early aborts the runner. `outcome` receives the reply or the
 * typed error, so `Runtime.run` can drain this and throw the original error.
 */
export async function* driveTurn(
  engine: TurnEngine,
  setup: TurnSetup,
  prepare: Prepare,
  outcome: TurnOutcome = {},
): AsyncGenerator<StreamEvent, void, undefined> {
  const { agent, runId, sessionId } = setup;
  const span = startRunSpan(engine, setup);
  // Hooks, model calls and tool calls below open their spans as children of this one (no
  // closure for it per turn: bundles keep names, so each named closure costs a defineProperty).
  const { tracer } = engine;
  const startedAt = performance.now();
  let firstEvent = true;
  const boundaries = new BoundaryTracker();
  let release: (() => Promise<void>) | undefined;
  let runnerStream: RunnerStream | undefined;
  let turn: Prepared | undefined;
  let journal: RunJournal | undefined;
  let ended = false;
  try {
    release = await acquire(engine, setup);
    yield { type: 'run-started', runId, sessionId, agent: agent.name };
    turn = await withActiveSpan(tracer, span, prepare);
    if (turn.halt) {
      span.setAttributes({ outcome: 'halted' });
      yield* textAsEvents(runId, turn.halt.text, 'halt');
      ended = true;
      outcome.reply = haltReply(turn);
      yield { type: 'run-finished', runId, reply: outcome.reply };
      return;
    }
    const prepared = engine.journal
      ? await withActiveSpan(tracer, span, () => withJournal(engine, setup, turn as Prepared))
      : turn;
    journal = prepared.toolContext.journal;
    if (prepared.resume) span.setAttributes({ resumed: true });
    const hooks = hooksOf(agent.postHooks, engine.deps.postHooks);
    // `Runtime.run` drains this generator unseen: events are checked (and shown to stream hooks)
    // but neither tracked nor yielded, which saves a generator round trip per event.
    const quiet = setup.drained === true;
    const stream = withActiveSpan(tracer, span, () =>
      runWithToolContext(prepared.toolContext, startRunner, prepared),
    );
    runnerStream = stream;
    let result: RunnerResult;
    const streaming = agent.runner.supportsStreaming;
    let text = '';
    const { toolContext } = prepared;
    for (;;) {
      // Each step runs inside the tool context so tools the framework calls can see it.
      const step = await (tracer === noopTracer
        ? runWithToolContext(toolContext, pullNext, stream)
        : withActiveSpan(tracer, span, () => runWithToolContext(toolContext, pullNext, stream)));
      if (step.done) {
        result = step.value;
        break;
      }
      if (firstEvent) {
        firstEvent = false;
        span.setAttributes({ timeToFirstEventMs: performance.now() - startedAt });
      }
      const checked = markReplayed(
        checkRunnerEvent(step.value, agent.runner.name, runId),
        prepared.toolContext.journal,
      );
      if (checked.type === 'text-delta') text += checked.delta;
      // A runner without token streaming: its reply is sent whole, once it is known.
      if (!streaming && isTokenEvent(checked)) continue;
      if (hooks.length === 0) {
        if (quiet) continue;
        boundaries.observe(checked);
        yield checked;
        continue;
      }
      const events = await applyStreamHooks(hooks, checked, prepared.info);
      if (quiet) continue;
      for (const event of events) {
        boundaries.observe(event);
        yield event;
      }
    }
    runnerStream = undefined;
    // The outcomes (and a response) the runner's last steps hold reach the journal before the
    // turn's outcome is stored: one write.
    if (journal) await journal.flush();
    const reply = await withActiveSpan(tracer, span, () =>
      finish(engine, prepared, result, span, text),
    );
    span.setAttributes({ outcome: reply.status });
    span.setPayload('output', () => (reply.status === 'completed' ? reply.text : reply));
    if (!streaming && !quiet && reply.status === 'completed') {
      for (const event of textAsEvents(runId, reply.text, 'reply')) {
        boundaries.observe(event);
        yield event;
      }
    }
    // A runner that forgot to close something still gives clients a well-formed stream.
    for (const event of boundaries.closeAll()) yield event;
    ended = true;
    outcome.reply = reply;
    if (reply.status === 'paused') {
      yield { type: 'run-paused', runId, sessionId, interruptions: reply.interruptions };
    } else {
      yield { type: 'run-finished', runId, reply };
    }
  } catch (err) {
    const error = normaliseRunError(err, agent.name, setup.abort.signal);
    span.recordError(error);
    setup.abort.abort(error);
    await closeQuietly(runnerStream);
    runnerStream = undefined;
    await flushQuietly(journal);
    await releaseClaim(engine, turn);
    yield* boundaries.closeAll();
    ended = true;
    outcome.error = outgoingError(engine, error);
    yield { type: 'run-error', runId, code: error.code, message: error.message };
  } finally {
    if (!ended) {
      // The consumer stopped early: stop the runner, store nothing.
      setup.abort.abort(new RunnerError('The stream consumer stopped.', { code: 'run-aborted' }));
      await closeQuietly(runnerStream);
      await flushQuietly(journal);
      await releaseClaim(engine, turn);
    }
    // The lease's release is after the save: it never turns a stored outcome into an error.
    if (release) await afterSave(engine, span, 'session-lease-release', release);
    span.end();
  }
}

/** The runner's stream for a prepared turn (a new one, or a resume from its resume point). */
function startRunner(prepared: Prepared): RunnerStream {
  const { runner } = prepared.setup.agent;
  return prepared.resume
    ? runner.resumeStream!({ ...prepared.input, ...prepared.resume })
    : runner.stream(prepared.input);
}

function pullNext(stream: RunnerStream): ReturnType<RunnerStream['next']> {
  return stream.next();
}

/**
 * A best-effort step after the turn's outcome is stored: its failure is recorded on a child span
 * of the run (opened only then) and swallowed, so the caller still gets the stored outcome.
 */
async function afterSave(
  engine: TurnEngine,
  parent: Span,
  name: string,
  step: () => Promise<void>,
): Promise<void> {
  try {
    await step();
  } catch (err) {
    const child = engine.tracer.startSpan(name, {}, { kind: 'internal', parent });
    child.recordError(err);
    child.end();
  }
}

/**
 * Opens the run's journal into the tool context. Read (one Query) only when the run may be a
 * replay: a fresh runtime-generated run id pays no request here.
 */
async function withJournal(
  engine: TurnEngine,
  setup: TurnSetup,
  turn: Prepared,
): Promise<Prepared> {
  if (!engine.journal) return turn;
  const journal = await openRunJournal({
    store: engine.journal,
    sessionId: setup.sessionId,
    runId: setup.runId,
    replay: setup.replay || turn.resume !== undefined,
    now: engine.deps.now,
  });
  return { ...turn, toolContext: { ...turn.toolContext, journal } };
}

/** A tool result the journal answered (the call ran in an earlier attempt) says so. */
function markReplayed(event: StreamEvent, journal: RunJournal | undefined): StreamEvent {
  if (event.type !== 'tool-call-result' || !journal?.replayed?.(event.toolCallId)) return event;
  return { ...event, replayed: true };
}

/** The span of one turn; `framework` (the runner's name) keeps metric dimensions low-cardinality. */
function startRunSpan(engine: TurnEngine, setup: TurnSetup): Span {
  const { agent, runId, sessionId, principal } = setup;
  const span = engine.tracer.startSpan(
    'run',
    { agent: agent.name, framework: agent.runner.name, sessionId, runId, principal },
    { kind: 'run' },
  );
  // Lazy: built only by a backend that records payloads.
  span.setPayload('input', () => setup.requests.map((r) => (r.type === 'text' ? r.text : r)));
  return span;
}

async function acquire(engine: TurnEngine, setup: TurnSetup): Promise<() => Promise<void>> {
  try {
    // The controller is aborted only after the lock is held: no abort listener for it here.
    return await engine.lock.acquire(setup.sessionId, setup.callerSignal);
  } catch (err) {
    throw normaliseRunError(err, setup.agent.name, setup.abort.signal);
  }
}

/** Success: store the session (and drop a resumed run); pause: store the paused run. */
async function finish(
  engine: TurnEngine,
  turn: PreparedTurn,
  result: RunnerResult,
  span: Span,
  text: string,
): Promise<AgentReply | PausedReply> {
  if (result.status === 'paused') {
    if (!engine.pause) {
      throw new RunnerError(
        `Agent "${turn.setup.agent.name}" paused for a decision, but this runtime has no paused-run store.`,
        { code: 'pause-unsupported' },
      );
    }
    return pauseTurn(engine.pause, turn, result, text);
  }
  const reply = await completeTurn(engine.deps, turn, result);
  const { pause } = engine;
  if (turn.resume && pause) {
    // After the session is stored: a failure or crash here leaves a claimed run whose claim
    // lapses; the next resume finds the session without its marker and deletes it (prepareResume).
    await afterSave(engine, span, 'paused-run-delete', () =>
      pause.pausedRuns.delete(turn.setup.sessionId, turn.setup.runId),
    );
  }
  return reply;
}

/**
 * A failed resume gives its claim back, so the same decisions can be sent again. A process that
 * dies never gets here: its claim lapses after `resumeClaimMs` and the next resume takes it over.
 */
async function releaseClaim(engine: TurnEngine, turn: Prepared | undefined): Promise<void> {
  if (!turn?.resume || !turn.claim || !engine.pause) return;
  try {
    await engine.pause.pausedRuns.release(turn.setup.sessionId, turn.setup.runId, turn.claim.token);
  } catch {
    // The claim lapses after resumeClaimMs; the turn's own error is what the caller needs.
  }
}

/**
 * A failed or stopped turn still writes the outcomes its tools reached, so a retry replays them
 * instead of finding them unknown; a failure here leaves them unknown, the turn's own error stays.
 */
async function flushQuietly(journal: RunJournal | undefined): Promise<void> {
  try {
    await journal?.flush();
  } catch {
    // The calls stay `started`: a retry does not run them again.
  }
}

async function closeQuietly(stream: RunnerStream | undefined): Promise<void> {
  if (!stream) return;
  try {
    await stream.return(undefined as never);
  } catch {
    // The runner failed while stopping; the run's own error is what matters.
  }
}

function haltReply(turn: PreparedTurn): AgentReply {
  const { runId, sessionId, agent } = turn.setup;
  const halt = turn.halt ?? { text: '' };
  return {
    status: 'completed',
    runId,
    sessionId,
    agent: agent.name,
    text: halt.text,
    ...(halt.output === undefined ? {} : { output: halt.output }),
  };
}
