import type { StreamEvent } from '../../../lib/core/events.js';
import type {
  Runner,
  RunnerInput,
  RunnerResumeInput,
  RunnerStream,
} from '../../../lib/core/runner.js';
import type { JsonValue } from '../../../lib/core/session.js';
import type { AnyToolSpec, Executor } from '../../../lib/tools/index.js';
import { ApprovalPending, modelVisibleError, mustPropagate } from '../../../lib/tools/index.js';

/** The "model" of this framework: the request text is a JSON plan of tool calls. */
export interface Plan {
  calls: { id: string; tool: string; args: unknown }[];
  reply: string;
}

interface Progress {
  plan: Plan;
  results: { id: string; result: unknown }[];
}

/**
 * A minimal framework with no approval gate of its own, as Strands or ADK agents would be wired:
 * it runs each planned call through the Executor; a `confirm` tool's `ApprovalPending` becomes a
 * paused run whose state is the progress so far, and resume continues from the pending call.
 */
export class PlanRunner implements Runner<null> {
  readonly name = 'plan';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = {};
  readonly #tools: Map<string, AnyToolSpec>;
  readonly #executor: Executor;

  constructor(tools: AnyToolSpec[], executor: Executor) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
    this.#executor = executor;
  }

  stream(input: RunnerInput<null>): RunnerStream {
    const text = input.requests.map((r) => (r.type === 'text' ? r.text : '')).join('');
    return this.#go(input, { plan: JSON.parse(text) as Plan, results: [] });
  }

  resumeStream(input: RunnerResumeInput<null>): RunnerStream {
    return this.#go(input, input.pausedState as unknown as Progress);
  }

  async *#go(input: RunnerInput<null> | RunnerResumeInput<null>, progress: Progress): RunnerStream {
    const { runId } = input;
    for (const call of progress.plan.calls.slice(progress.results.length)) {
      const spec = this.#tools.get(call.tool);
      if (!spec) throw new Error(`no tool ${call.tool}`);
      yield { type: 'tool-call-start', runId, toolCallId: call.id, toolName: call.tool };
      yield {
        type: 'tool-call-args',
        runId,
        toolCallId: call.id,
        delta: JSON.stringify(call.args),
      };
      yield { type: 'tool-call-end', runId, toolCallId: call.id };
      let result: unknown;
      try {
        result = await this.#executor.runSpec(spec, call.args, {}, { callId: call.id });
      } catch (err) {
        if (err instanceof ApprovalPending) {
          return {
            status: 'paused',
            interruptions: [err.interruption],
            pausedState: progress as unknown as JsonValue,
            context: input.context,
          };
        }
        if (mustPropagate(err)) throw err;
        result = modelVisibleError(err);
      }
      progress.results.push({ id: call.id, result });
      const event: StreamEvent = {
        type: 'tool-call-result',
        runId,
        toolCallId: call.id,
        toolName: call.tool,
        result,
      };
      yield event;
    }
    const text = `${progress.plan.reply} ${JSON.stringify(progress.results)}`;
    return { status: 'completed', text, state: { last: text }, context: input.context };
  }
}
