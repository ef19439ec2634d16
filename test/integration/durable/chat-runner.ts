import { journaledModelStep } from '../../../lib/core/model-step.js';
import type {
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
} from '../../../lib/core/runner.js';
import type { JsonValue } from '../../../lib/core/session.js';
import type { AnyToolSpec, Executor } from '../../../lib/tools/index.js';
import { ApprovalPending, modelVisibleError, mustPropagate } from '../../../lib/tools/index.js';

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

type AssistantMessage = { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };

type Message =
  | { role: 'user'; content: string }
  | AssistantMessage
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * A minimal framework over a Chat Completions endpoint (the scripted model server), wired to the
 * run journal the way a real runner is: a model response that asks for tool calls is recorded
 * (keyed by a hash of the request) before the tools run, and a replay serves it instead of
 * calling the model, so the call ids stay the same. Tools run through the Executor (the journal
 * guard); a `confirm` tool's `ApprovalPending` pauses the run with the messages so far.
 */
export class ChatRunner implements Runner<null> {
  readonly name = 'chat';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = {};
  readonly #tools: Map<string, AnyToolSpec>;

  constructor(
    tools: AnyToolSpec[],
    readonly executor: Executor,
    readonly baseURL: string,
  ) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
  }

  stream(input: RunnerInput<null>): RunnerStream {
    const text = input.requests.map((r) => (r.type === 'text' ? r.text : '')).join('');
    const history = ((input.state as { messages?: Message[] } | undefined)?.messages ?? []).slice();
    return this.#go(input, [...history, { role: 'user', content: text }]);
  }

  resumeStream(input: RunnerResumeInput<null>): RunnerStream {
    return this.#go(input, (input.pausedState as unknown as { messages: Message[] }).messages);
  }

  async *#go(
    input: RunnerInput<null> | RunnerResumeInput<null>,
    messages: Message[],
  ): RunnerStream {
    for (;;) {
      const pending = pendingCalls(messages);
      if (pending.length > 0) {
        const done: { call: ToolCall; result: unknown }[] = [];
        const paused = await this.#runTools(input, messages, pending, done);
        // Each finished call's result, as runners stream them (the turn marks a replayed one).
        for (const { call, result } of done) {
          yield {
            type: 'tool-call-result',
            runId: input.runId,
            toolCallId: call.id,
            toolName: call.function.name,
            result,
          };
        }
        if (paused) return paused;
        continue;
      }
      const reply = await this.#model(messages, input.signal);
      messages.push(reply);
      if (!reply.tool_calls?.length) {
        yield { type: 'message-start', runId: input.runId, messageId: 'm1' };
        yield {
          type: 'text-delta',
          runId: input.runId,
          messageId: 'm1',
          delta: reply.content ?? '',
        };
        yield { type: 'message-end', runId: input.runId, messageId: 'm1' };
        return {
          status: 'completed',
          text: reply.content ?? '',
          state: { messages } as unknown as JsonValue,
          context: input.context,
        };
      }
    }
  }

  async #runTools(
    input: RunnerInput<null> | RunnerResumeInput<null>,
    messages: Message[],
    calls: ToolCall[],
    done: { call: ToolCall; result: unknown }[] = [],
  ): Promise<RunnerResult | undefined> {
    for (const call of calls) {
      const spec = this.#tools.get(call.function.name);
      let result: unknown;
      try {
        if (!spec) throw new Error(`no tool ${call.function.name}`);
        const args = JSON.parse(call.function.arguments) as unknown;
        result = await this.executor.runSpec(spec, args, {}, { callId: call.id });
      } catch (err) {
        if (err instanceof ApprovalPending) {
          return {
            status: 'paused',
            interruptions: [err.interruption],
            pausedState: { messages } as unknown as JsonValue,
            context: input.context,
          };
        }
        if (mustPropagate(err)) throw err;
        result = modelVisibleError(err);
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      done.push({ call, result });
    }
    return undefined;
  }

  /** One model step: the recorded response on a replay, else the endpoint's (recorded if it calls tools). */
  #model(messages: Message[], signal: AbortSignal): Promise<AssistantMessage> {
    return journaledModelStep(
      { messages },
      async () => (await this.#call(messages, signal)) as unknown as JsonValue,
      // Only a step that asks for side effects is recorded: a text answer costs no write.
      (reply) => ((reply as unknown as AssistantMessage).tool_calls?.length ?? 0) > 0,
    ) as unknown as Promise<AssistantMessage>;
  }

  async #call(messages: Message[], signal: AbortSignal): Promise<AssistantMessage> {
    const res = await fetch(`${this.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted-model', messages, tools: this.#toolsJson() }),
      signal,
    });
    const body = (await res.json()) as any;
    if (!res.ok) throw new Error(`model error ${res.status}: ${body?.error?.message ?? ''}`);
    const message = body.choices[0].message as AssistantMessage;
    return {
      role: 'assistant',
      content: message.content ?? null,
      ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    };
  }

  #toolsJson() {
    return [...this.#tools.values()].map((spec) => ({
      type: 'function',
      function: { name: spec.name, description: spec.description, parameters: spec.jsonSchema() },
    }));
  }
}

/** The last assistant message's tool calls that have no result yet. */
function pendingCalls(messages: Message[]): ToolCall[] {
  const index = messages.findLastIndex((m) => m.role === 'assistant');
  const assistant = messages[index];
  if (assistant?.role !== 'assistant' || !assistant.tool_calls) return [];
  const done = new Set(
    messages.slice(index + 1).flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])),
  );
  return assistant.tool_calls.filter((call) => !done.has(call.id));
}
