import type { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import { Command, type Pregel } from '@langchain/langgraph';
import { ReservedRunOption } from '../../core/errors.js';
import type { StreamEvent } from '../../core/events.js';
import type { Interruption } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions, type RunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import { tryToolContext } from '../../core/tool-context.js';
import { activeSpan } from '../../core/tracer.js';
import { CheckpointJournal } from './checkpoint-journal.js';
import { type CheckpointSnapshot, SessionCheckpointSaver } from './checkpointer.js';
import { mapLangGraphError } from './errors.js';
import { LangGraphEventMapper, type RawInterrupt, textOf } from './events.js';
import { LangGraphModelSpans } from './model-tracing.js';
import {
  loadPaused,
  loadSlot,
  type PausedInterrupt,
  toHumanMessage,
  toPaused,
  toSlot,
} from './state.js';
import { guardGraphTools } from './tool-journal.js';
import type { ApprovalInterrupt } from './tools.js';

/** A compiled graph (StateGraph.compile(), createReactAgent) whose state has `messages`. */
// biome-ignore lint/suspicious/noExplicitAny: LangGraph's compiled graph (Pregel) is invariant in its node, channel, context and input/output types, so only Pregel<any, ...> holds every user graph (LangGraph's own helpers take Pregel<any, any> alike)
export type CompiledGraph = Pregel<any, any, any, any, any>;

export interface LangGraphAgentDefinition {
  readonly name: string;
  readonly description?: string;
  /** The compiled graph, or an object holding it as `graph` (langchain's `createAgent`). */
  readonly graph: CompiledGraph | { readonly graph: CompiledGraph };
}

/** Keys this runner sets itself; users cannot pass them as run options. */
export const LANGGRAPH_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  thread_id: 'the thread is the runtime session (its checkpoints live in the session store)',
  streamMode: 'the runner streams messages and updates to map them onto events',
  signal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
  context: 'the framework context comes from the session',
};

const THREAD = 'session';

/**
 * Runs compiled LangGraph graphs. Each turn gets a `SessionCheckpointSaver` seeded from the
 * session slot (or the paused run), so the graph's own checkpoints carry the conversation and a
 * pause; `interrupt()` pauses, `Command({ resume })` continues. Framework context is passed as
 * LangGraph's runtime `context` (nodes and tools read it from their config/runtime).
 */
export class LangGraphRunner implements Runner<LangGraphAgentDefinition> {
  readonly name = 'langgraph';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = LANGGRAPH_RESERVED_RUN_OPTIONS;

  /** The tools of the graph's tool nodes (a prebuilt `ToolNode`, or `createAgent`'s). */
  describeTools(native: LangGraphAgentDefinition): ToolSummary[] {
    const graph = ('graph' in native.graph ? native.graph.graph : native.graph) as {
      nodes?: Record<string, { bound?: { tools?: unknown } }>;
    };
    return Object.values(graph.nodes ?? {}).flatMap((node) => {
      const tools = node.bound?.tools;
      if (!Array.isArray(tools)) return [];
      return tools.map((t: { name?: string; description?: string }) => ({
        name: t.name ?? '',
        description: t.description ?? '',
      }));
    });
  }

  validateRunOptions(options: RunOptions): void {
    const configurable = (options as { configurable?: unknown }).configurable;
    if (configurable && typeof configurable === 'object' && 'thread_id' in configurable) {
      throw new ReservedRunOption(
        this.name,
        'configurable.thread_id',
        LANGGRAPH_RESERVED_RUN_OPTIONS.thread_id as string,
      );
    }
  }

  stream(input: RunnerInput<LangGraphAgentDefinition>): RunnerStream {
    const seed = loadSlot(input.sessionId, input.state);
    return this.#stream(input, { messages: [toHumanMessage(input.requests)] }, seed);
  }

  /** Answers every interrupt by its LangGraph id with the decision (status, message, arguments). */
  resumeStream(input: RunnerResumeInput<LangGraphAgentDefinition>): RunnerStream {
    const paused = loadPaused(input.sessionId, input.pausedState);
    const byId = new Map(input.decisions.map((d) => [d.id, d]));
    const resume = Object.fromEntries(
      paused.interrupts.map((i) => {
        const { id: _id, ...decision } = byId.get(i.id) ?? { id: i.id, status: 'denied' };
        return [i.interruptId, decision];
      }),
    );
    return this.#stream(input, new Command({ resume }), paused.checkpoints);
  }

  async *#stream(
    input: RunnerInput<LangGraphAgentDefinition> | RunnerResumeInput<LangGraphAgentDefinition>,
    graphInput: unknown,
    seed: CheckpointSnapshot | undefined,
  ): RunnerStream {
    const { configurable, ...options } = ownOptions(
      input.options,
      LANGGRAPH_RESERVED_RUN_OPTIONS,
    ) as {
      configurable?: Record<string, unknown>;
      callbacks?: Callbacks;
    };
    const durable = journaled(input);
    const recorded = durable?.latest();
    const saver = new SessionCheckpointSaver(
      recorded ?? seed,
      durable && ((snapshot) => durable.record(snapshot)),
    );
    const graph = withSaver(input.agent.native, saver);
    // Native tools behind the journal and, in a traced run, in `tool` spans.
    if (durable || activeSpan()) guardGraphTools(graph);
    const mapper = new LangGraphEventMapper(input.runId);
    const config = { configurable: { ...configurable, thread_id: THREAD } };
    // One `model` span per model call, under the run's span (none when not traced).
    const spans = activeSpan() ? new LangGraphModelSpans() : undefined;
    let values: { messages?: BaseMessage[] } | undefined;
    try {
      // A recorded checkpoint: its model step is not asked again; its tool calls are reported.
      if (recorded) for (const event of replayed(mapper, await graph.getState(config))) yield event;
      const stream = await graph.stream(recorded ? null : graphInput, {
        ...options,
        ...config,
        ...(spans ? { callbacks: withHandler(options.callbacks, spans) } : {}),
        // The checkpoint before a tool call must be in the journal before the tool runs.
        ...(durable ? { durability: 'sync' as const } : {}),
        context: input.context,
        // A drained turn's run settles before the turn's own signal can abort (RunnerInput):
        // the caller's alone spares every step its signal listeners.
        ...signalOf(input),
        // A drained turn (`Runtime.run`) skips `messages`: without its token handler the chat
        // model is called without streaming, as `invoke` would; updates carry whole messages.
        streamMode: 'drained' in input && input.drained ? ['updates'] : ['messages', 'updates'],
      });
      // Not `yield*`: over the mapper's sync generators it costs every event one more await.
      for await (const chunk of stream) for (const event of mapper.map(chunk)) yield event;
      for (const event of mapper.finish()) yield event;
      values = await finalValues(graph, saver, config);
    } catch (err) {
      throw mapLangGraphError(err, input.agent.name);
    } finally {
      spans?.close(input.signal);
    }
    const usage = mapper.usage;
    if (mapper.interrupts.length > 0) {
      const interrupts = mapper.interrupts.map(toPausedInterrupt);
      return {
        status: 'paused',
        interruptions: mapper.interrupts.map(toInterruption),
        pausedState: toPaused(saver.snapshot(), interrupts),
        context: input.context,
        ...(usage ? { usage } : {}),
      };
    }
    const last = values?.messages?.at(-1);
    return {
      status: 'completed',
      text: last ? textOf(last.content) : '',
      ...(usage ? { usage } : {}),
      state: toSlot(saver.snapshot()),
      // Tools through our integration change the very object passed; that is the new context.
      context: input.context,
    };
  }
}

function signalOf(
  input: RunnerInput<LangGraphAgentDefinition> | RunnerResumeInput<LangGraphAgentDefinition>,
): { signal?: AbortSignal } {
  if (!('drained' in input && input.drained)) return { signal: input.signal };
  return input.callerSignal ? { signal: input.callerSignal } : {};
}

/** The run's checkpoint journal, when the runtime opened a journal for this turn. */
function journaled(
  input: RunnerInput<LangGraphAgentDefinition> | RunnerResumeInput<LangGraphAgentDefinition>,
): CheckpointJournal | undefined {
  const journal = tryToolContext()?.journal;
  if (!journal) return undefined;
  if (!('pausedState' in input)) return new CheckpointJournal(journal);
  return new CheckpointJournal(journal, {
    pausedState: input.pausedState,
    decisions: input.decisions,
  });
}

/** The recorded model message a retried run starts after, as events (its tool calls). */
function replayed(
  mapper: LangGraphEventMapper,
  state: { values?: { messages?: BaseMessage[] } },
): Generator<StreamEvent> {
  const last = state.values?.messages?.at(-1);
  return mapper.map(['updates', { replayed: { messages: last ? [last] : [] } }]);
}

/** The caller's callbacks (a list or a manager) plus ours. */
function withHandler(given: Callbacks | undefined, handler: BaseCallbackHandler): Callbacks {
  if (!given) return [handler];
  if (Array.isArray(given)) return [...given, handler];
  const manager = given.copy();
  manager.addHandler(handler, true);
  return manager;
}

/**
 * The state's messages after the run: the newest root checkpoint the run put holds them (the
 * very values `getState` would load back); `getState` only when it holds no message list (none
 * put, or a channel checkpointed as deltas).
 */
async function finalValues(
  graph: CompiledGraph,
  saver: SessionCheckpointSaver,
  config: { configurable: Record<string, unknown> },
): Promise<{ messages?: BaseMessage[] }> {
  const latest = saver.latestRootValues();
  if (Array.isArray(latest?.messages)) return { messages: latest.messages as BaseMessage[] };
  return (await graph.getState(config)).values;
}

/** A copy of the graph that checkpoints into `saver` (the same copy `withConfig` makes). */
function withSaver(native: LangGraphAgentDefinition, saver: SessionCheckpointSaver): CompiledGraph {
  // A ReactAgent (createAgent) also streams, but copying it recompiles; its graph copies cheaply.
  const held = native.graph as { graph?: CompiledGraph };
  const graph = held.graph?.getState ? held.graph : (native.graph as CompiledGraph);
  const copy = graph.withConfig({});
  copy.checkpointer = saver;
  return copy;
}

function approvalOf(value: unknown): ApprovalInterrupt | undefined {
  const v = value as ApprovalInterrupt | undefined;
  return v?.kind === 'tool-approval' && typeof v.toolCallId === 'string' ? v : undefined;
}

function toInterruption(raw: RawInterrupt): Interruption {
  const approval = approvalOf(raw.value);
  if (approval) {
    return {
      id: approval.interruptionId ?? approval.toolCallId,
      kind: 'tool-approval',
      toolName: approval.toolName,
      arguments: approval.arguments,
      ...(approval.message ? { message: approval.message } : {}),
    };
  }
  // The graph's own interrupt(value): a question for a human, answered by the decision.
  const message = typeof raw.value === 'string' ? raw.value : JSON.stringify(raw.value ?? null);
  return { id: String(raw.id), kind: 'input', message };
}

function toPausedInterrupt(raw: RawInterrupt): PausedInterrupt {
  const interruption = toInterruption(raw);
  return { id: interruption.id, interruptId: String(raw.id), kind: interruption.kind };
}
