import { RequestContext } from '@mastra/core/request-context';
import { RunnerError } from '../../core/errors.js';
import type { StreamEvent } from '../../core/events.js';
import type { Interruption } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Decision,
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import { tryToolContext } from '../../core/tool-context.js';
import { activeSpan } from '../../core/tracer.js';
import { gateDecision, gateInterruption } from '../../tools/guard.js';
import { isModelV2, v2AsV3 } from '../base/v2-model.js';
import {
  type Ended,
  endedGenerate,
  endedStream,
  generated,
  type StreamOutput,
  toUsage,
} from './ended.js';
import { mapMastraError } from './errors.js';
import { MastraEventMapper, type PendingApproval } from './events.js';
import { mapGenerated } from './generated.js';
import { isModelV3, layered } from './model.js';
import { CallIndex, journalLayer } from './model-journal.js';
import { MastraModelSpans } from './model-tracing.js';
import type { MastraNativeAgent } from './native.js';
import { RunSnapshots, withEditedArguments } from './snapshots.js';
import {
  loadHistory,
  loadPaused,
  type StoredMessage,
  toHistory,
  toPaused,
  toUserMessage,
} from './state.js';
import { guardedTools } from './tool-journal.js';

export type { MastraNativeAgent };

/**
 * `agent.stream` options (its overloads are keyed by structured output, so they are handed over
 * as `never`): the keys we set or read.
 */
interface StreamOptions {
  readonly modelSettings?: Record<string, unknown>;
  readonly providerOptions?: unknown;
  readonly onError?: unknown;
  readonly [option: string]: unknown;
}
/** The run's request context: the session's framework context, whatever its keys. */
type Context = RequestContext<unknown>;

/** Keys this runner sets itself; users cannot pass them as run options. */
export const MASTRA_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  memory: 'history is kept in the runtime session store',
  context: 'history is kept in the runtime session store',
  runId: 'the runner keeps Mastra’s run id with a paused run',
  requestContext: 'the framework context comes from the session',
  abortSignal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
  model: 'the model belongs to the agent',
  toolsets: 'tools belong to the agent (the runner guards them per run)',
};

/** Each agent's tools as last listed (a card is built synchronously). */
const listedTools = new WeakMap<object, ToolSummary[]>();

/** Lists the agent's tools for its card; a turn lists them again (a tools function may vary). */
export async function warmTools(
  native: MastraNativeAgent,
  tools?: Record<string, unknown>,
): Promise<void> {
  const listed = tools ?? ((await native.listTools()) as Record<string, unknown>);
  listedTools.set(
    native,
    Object.entries(listed).map(([name, t]) => ({
      name,
      description: String((t as { description?: unknown } | undefined)?.description ?? ''),
    })),
  );
}

/** One turn's Mastra call: a new stream, or a resume of a suspended run. */
type Start = (options: StreamOptions) => Promise<StreamOutput>;

/** The turn's body: Mastra's calls with the turn's options, their events, how the run ended. */
type Body = (
  options: StreamOptions,
  mapper: MastraEventMapper,
  started: (runId: string) => void,
) => AsyncGenerator<StreamEvent, Ended, undefined>;

/**
 * Runs Mastra agents through `agent.stream`, or `agent.generate` for a drained turn (`Runtime.run`:
 * the model's non-streaming call). History is the
 * thread's messages in Mastra's stored form in the session slot; tools with `requireApproval`
 * (or `requireToolApproval`) suspend the run, kept as Mastra's workflow snapshots in the paused
 * state and resumed with `approveToolCall` / `declineToolCall`.
 */
export class MastraRunner implements Runner<MastraNativeAgent> {
  readonly name = 'mastra';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = MASTRA_RESERVED_RUN_OPTIONS;

  /** The agent's tools as Mastra last listed them (`warmTools`: listing is async in Mastra). */
  describeTools(native: MastraNativeAgent): ToolSummary[] {
    return listedTools.get(native) ?? [];
  }

  stream(input: RunnerInput<MastraNativeAgent>): RunnerStream {
    const history = loadHistory(input.sessionId, input.state);
    const messages = [...history, toUserMessage(input.requests)];
    const agent = input.agent.native;
    if (input.drained) {
      return this.#session(input, history, async function* (options, mapper, started) {
        const output = await generated(() => agent.generate(messages as never, options as never));
        started(output.runId ?? '');
        yield* mapGenerated(output, mapper);
        return endedGenerate(output);
      });
    }
    return this.#turn(input, history, (options) =>
      agent.stream(messages as never, options as never),
    );
  }

  /** Writes the suspended run's snapshots back, then approves or declines each held call. */
  resumeStream(input: RunnerResumeInput<MastraNativeAgent>): RunnerStream {
    const paused = loadPaused(input.sessionId, input.pausedState);
    const agent = input.agent.native;
    const edits = argumentEdits(paused.approvals, input.decisions);
    const runId = paused.mastraRunId;
    const resume = (call: PendingApproval, options: StreamOptions) => {
      const decision = gateDecision(input.decisions, call.toolCallId);
      const at = { ...options, runId, toolCallId: call.toolCallId };
      if (call.suspended) {
        // The tool's own suspend(): it reads the decision (status, message, arguments) as resume data.
        const { id: _id, ...answer } = decision ?? { id: call.toolCallId, status: 'denied' };
        return agent.resumeStream(answer, at as never);
      }
      return decision?.status === 'approved'
        ? agent.approveToolCall(at as never)
        : agent.declineToolCall({
            ...at,
            ...(decision?.message ? { reason: decision.message } : {}),
          } as never);
    };
    const [first] = paused.approvals;
    if (!first) throw new RunnerError('The paused Mastra run holds no tool call.');
    return this.#turn(
      input,
      paused.history,
      async (options) => {
        await new RunSnapshots(agent).import(runId, withEditedArguments(paused.snapshots, edits));
        return resume(first, options);
      },
      { decisions: input.decisions, resume },
    );
  }

  #turn(
    input: RunnerInput<MastraNativeAgent> | RunnerResumeInput<MastraNativeAgent>,
    history: readonly StoredMessage[],
    start: Start,
    resuming?: {
      decisions: readonly Decision[];
      resume: (call: PendingApproval, options: StreamOptions) => Promise<StreamOutput>;
    },
  ): RunnerStream {
    return this.#session(input, history, async function* (options, mapper, started) {
      let output = await call(() => start(options));
      started(output.runId);
      for (;;) {
        yield* drain(output, mapper);
        // More calls held at once: Mastra asks for them one by one.
        const next = resuming && pendingDecided(output, mapper, resuming.decisions);
        if (!next) break;
        mapper.approvals.length = 0;
        output = await call(() => resuming.resume(next, options));
      }
      return endedStream(output);
    });
  }

  /** One turn's setup and teardown around its body (streamed or generated). */
  async *#session(
    input: RunnerInput<MastraNativeAgent> | RunnerResumeInput<MastraNativeAgent>,
    history: readonly StoredMessage[],
    body: Body,
  ): RunnerStream {
    const spans = new MastraModelSpans();
    const agent = input.agent.native;
    const snapshots = new RunSnapshots(agent);
    const requestContext: Context = new RequestContext(Object.entries(input.context));
    // What native tools saw; ToolSpec tools change `input.context` itself.
    const initial = { ...input.context };
    let mastraRunId: string | undefined;
    try {
      await snapshots.prepare();
      const options = await this.#options(input, requestContext, spans);
      const mapper = new MastraEventMapper(input.runId);
      const ended = yield* body(options, mapper, (runId) => {
        mastraRunId = runId || undefined;
      });
      const context = { ...input.context, ...changed(initial, requestContext) };
      return await this.#result(input, ended, mapper, history, snapshots, context);
    } finally {
      spans.close(input.signal);
      if (mastraRunId) await snapshots.release(mastraRunId);
    }
  }

  async #options(
    input: RunnerInput<MastraNativeAgent> | RunnerResumeInput<MastraNativeAgent>,
    requestContext: Context,
    spans: MastraModelSpans,
  ): Promise<StreamOptions> {
    const agent = input.agent.native;
    const given = ownOptions(input.options, MASTRA_RESERVED_RUN_OPTIONS) as Partial<StreamOptions>;
    const calls = new CallIndex();
    const model = await this.#model(agent, requestContext, spans, calls);
    const listed = (await agent.listTools({ requestContext })) as Record<string, unknown>;
    await warmTools(agent, listed);
    const tools = guardedTools(listed, calls);
    return {
      ...given,
      // Retries are the caller's policy; a failed turn stores nothing and can be sent again.
      modelSettings: { maxRetries: 0, ...given.modelSettings },
      providerOptions: withoutServerHistory(given.providerOptions),
      requestContext,
      abortSignal: input.signal,
      // Mastra's own onError logs; errors are read from the stream and mapped there.
      onError: given.onError ?? (() => undefined),
      ...(model ? { model: model as never } : {}),
      // A toolset overrides the agent's tools of the same name: the guarded copies run instead.
      ...(tools ? { toolsets: { 'agent-kernel': tools as never } } : {}),
    };
  }

  /** The agent's model behind the run journal and our model spans, when either is in force. */
  async #model(
    agent: MastraNativeAgent,
    requestContext: Context,
    spans: MastraModelSpans,
    calls: CallIndex,
  ): Promise<unknown> {
    const journaled = !!tryToolContext()?.journal;
    const traced = !!activeSpan();
    if (!journaled && !traced) return undefined;
    const given = await agent.getModel({ requestContext });
    // Mastra's wrapper keeps the provider model private: the agent's own field has its URL.
    spans.configured = (agent as { model?: unknown }).model;
    // A v2 (AI SDK 5) model as the v3 one; any other version (v1, v4) runs unjournaled.
    const model = isModelV2(given) ? v2AsV3<unknown>(given) : given;
    if (!isModelV3(model)) return undefined;
    const withJournal = journaled ? layered(model, journalLayer(calls)) : model;
    return traced ? layered(withJournal, spans) : withJournal;
  }

  async #result(
    input: RunnerInput<MastraNativeAgent> | RunnerResumeInput<MastraNativeAgent>,
    output: Ended,
    mapper: MastraEventMapper,
    history: readonly StoredMessage[],
    snapshots: RunSnapshots,
    context: Record<string, unknown>,
  ): Promise<RunnerResult> {
    const failure =
      mapper.failure() ?? (output.status === 'failed' ? mapMastraError(output.error) : undefined);
    if (failure) throw failure;
    if (input.signal.aborted) throw abortError(input.signal);
    const usage = toUsage(await output.usage());
    if (output.status === 'suspended') {
      if (mapper.approvals.length === 0) {
        throw new RunnerError('The Mastra run suspended without a held tool call.');
      }
      return {
        status: 'paused',
        interruptions: mapper.approvals.map(toInterruption),
        pausedState: toPaused({
          mastraRunId: output.runId,
          history: [...history],
          snapshots: await snapshots.export(output.runId),
          approvals: mapper.approvals,
        }),
        context,
        ...(usage ? { usage } : {}),
      };
    }
    return {
      status: 'completed',
      text: await output.text(),
      ...(usage ? { usage } : {}),
      state: toHistory(output.messages()),
      context,
    };
  }
}

async function call(start: () => Promise<StreamOutput>): Promise<StreamOutput> {
  try {
    return await start();
  } catch (err) {
    throw mapMastraError(err);
  }
}

async function* drain(output: StreamOutput, mapper: MastraEventMapper) {
  try {
    for await (const chunk of output.fullStream) yield* mapper.map(chunk as never);
    yield* mapper.finish();
  } catch (err) {
    throw mapMastraError(err);
  }
}

/** The next call of a resumed run that Mastra still holds and the person already decided. */
function pendingDecided(
  output: StreamOutput,
  mapper: MastraEventMapper,
  decisions: readonly Decision[],
): PendingApproval | undefined {
  if (output.status !== 'suspended') return undefined;
  return mapper.approvals.find((a) => gateDecision(decisions, a.toolCallId));
}

function toInterruption(a: PendingApproval): Interruption {
  if (a.suspended) {
    const { payload } = a.suspended;
    const message = typeof payload === 'string' ? payload : JSON.stringify(payload);
    return { id: a.toolCallId, kind: 'input', toolName: a.toolName, message };
  }
  return {
    ...gateInterruption(a.toolCallId),
    kind: 'tool-approval',
    toolName: a.toolName,
    ...(a.args === undefined ? {} : { arguments: a.args }),
  };
}

/** Approved calls whose arguments the person edited, by tool call id. */
function argumentEdits(
  approvals: readonly PendingApproval[],
  decisions: readonly Decision[],
): ReadonlyMap<string, unknown> {
  const edits = new Map<string, unknown>();
  for (const { toolCallId, suspended } of approvals) {
    if (suspended) continue;
    const decision = gateDecision(decisions, toolCallId);
    if (decision?.status === 'approved' && decision.arguments !== undefined) {
      edits.set(toolCallId, decision.arguments);
    }
  }
  return edits;
}

/** Request-context entries a native tool set or changed during the run (not Mastra's own). */
function changed(before: Record<string, unknown>, after: Context): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of after.entries()) {
    if (before[key] !== value && !String(key).startsWith('__mastra')) out[String(key)] = value;
  }
  return out;
}

/**
 * OpenAI's Responses API stores outputs by default and the provider then sends item references
 * instead of the messages: history would live on OpenAI's servers, not in our session.
 */
function withoutServerHistory(options: unknown): Record<string, unknown> {
  const given = (options ?? {}) as { openai?: Record<string, unknown> };
  return { ...given, openai: { store: false, ...given.openai } };
}

function abortError(signal: AbortSignal): Error {
  const err = new Error(String(signal.reason ?? 'The run was aborted.'));
  err.name = 'AbortError';
  return err;
}
