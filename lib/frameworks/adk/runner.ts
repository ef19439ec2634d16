import {
  Runner as AdkSdkRunner,
  type BaseAgent,
  type Event,
  isBaseTool,
  isLlmAgent,
  type RunConfig,
  StreamingMode,
} from '@google/adk';
import type { Interruption } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { gateInterruption } from '../../tools/guard.js';
import { mapAdkError, mapAdkEventError } from './errors.js';
import { AdkEventMapper } from './events.js';
import { AdkRunHooks, withRunHooks, wrapModels } from './model.js';
import {
  loadSlot,
  resumeFrom,
  type SessionSlot,
  SlotSessionService,
  toPaused,
  toUserContent,
} from './state.js';
import { guardAgentTools } from './tool-journal.js';

type Content = Parameters<AdkSdkRunner['runAsync']>[0]['newMessage'];

/** ADK's user id for every session: a session of ours belongs to one principal already. */
const USER_ID = 'user';

/** Keys this runner sets itself; users cannot pass them as run options. */
export const ADK_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  userId: 'the session belongs to the runtime call',
  sessionId: 'the session id comes from the Runtime call',
  newMessage: 'the turn’s input comes from the Runtime call',
  abortSignal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
  streamingMode: 'the runner streams over SSE (the runtime sends a whole reply when asked)',
  pauseOnToolCalls: 'tool calls run in the turn; pausing is the confirmation gate',
};

/**
 * Runs ADK agents (`LlmAgent` and its sub-agents) through ADK's own `Runner`, one per turn, with
 * ADK's session kept in our session slot (`SlotSessionService`). Run options are ADK's
 * `RunConfig` (`maxLlmCalls`, …) plus `stateDelta` and `customMetadata` for `runAsync`. Tools
 * with `requireConfirmation` pause the run; the resume answers ADK's confirmation request.
 */
export class AdkRunner implements Runner<BaseAgent> {
  readonly name = 'adk';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = ADK_RESERVED_RUN_OPTIONS;

  describeTools(native: BaseAgent): ToolSummary[] {
    if (!isLlmAgent(native)) return [];
    return native.tools.flatMap((tool) =>
      isBaseTool(tool) ? [{ name: tool.name, description: tool.description }] : [],
    );
  }

  stream(input: RunnerInput<BaseAgent>): RunnerStream {
    const slot = loadSlot(input.sessionId, input.state);
    return this.#run(input, slot, toUserContent(input.requests) as Content);
  }

  /** Answers every confirmation request; ADK runs the confirmed calls before the next model call. */
  resumeStream(input: RunnerResumeInput<BaseAgent>): RunnerStream {
    const { slot, message } = resumeFrom(input.sessionId, input.pausedState, input.decisions);
    return this.#run(input, slot, message as Content);
  }

  async *#run(
    input: RunnerInput<BaseAgent> | RunnerResumeInput<BaseAgent>,
    slot: SessionSlot,
    message: Content,
  ): RunnerStream {
    const native = input.agent.native;
    // In place, once: our model wrapper (steps, spans, journal) and the native tool guard.
    wrapModels(native);
    guardAgentTools(native);
    const sessions = new SlotSessionService(slot);
    const appName = input.agent.name;
    await sessions.createSession({ appName, userId: USER_ID, sessionId: input.sessionId });
    const { stateDelta, customMetadata, ...config } = ownOptions(
      input.options,
      ADK_RESERVED_RUN_OPTIONS,
    );
    const runner = new AdkSdkRunner({ appName, agent: native, sessionService: sessions });
    const events = runner.runAsync({
      userId: USER_ID,
      sessionId: input.sessionId,
      newMessage: message,
      // A drained turn (`Runtime.run`): whole model responses, no SSE (the mapper sends them whole).
      runConfig: { ...(config as RunConfig), streamingMode: streamingMode(input) },
      abortSignal: input.signal,
      ...(isRecord(stateDelta) ? { stateDelta } : {}),
      ...(isRecord(customMetadata) ? { customMetadata } : {}),
    });
    const hooks = new AdkRunHooks(input.runId);
    const mapper = new AdkEventMapper(input.runId);
    try {
      for (;;) {
        const next = await withRunHooks(hooks, () => events.next());
        yield* hooks.drain();
        if (next.done) break;
        const event: Event = next.value;
        if (event.errorCode || event.errorMessage) throw mapAdkEventError(event, hooks.thrown);
        yield* mapper.map(event);
      }
    } catch (err) {
      throw mapAdkError(err);
    } finally {
      await events.return(undefined);
    }
    yield* mapper.finish();
    if (input.signal.aborted) throw abortError();
    const usage = hooks.usage.inputTokens || hooks.usage.outputTokens ? hooks.usage : undefined;
    if (mapper.confirmations.length > 0) {
      return {
        status: 'paused',
        interruptions: mapper.confirmations.map(
          (c): Interruption => ({
            ...gateInterruption(c.callId),
            kind: 'tool-approval',
            toolName: c.toolName,
            arguments: c.args,
          }),
        ),
        pausedState: toPaused(sessions.snapshot(), mapper.confirmations),
        context: input.context,
        ...(usage ? { usage } : {}),
      };
    }
    return {
      status: 'completed',
      text: mapper.text,
      ...(usage ? { usage } : {}),
      state: sessions.snapshot() as unknown as JsonValue,
      // ADK has no run context: tools reach the framework context through the tool context.
      context: input.context,
    };
  }
}

function streamingMode(input: RunnerInput<BaseAgent> | RunnerResumeInput<BaseAgent>) {
  return 'drained' in input && input.drained ? StreamingMode.NONE : StreamingMode.SSE;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function abortError(): Error {
  const err = new Error('The run was aborted.');
  err.name = 'AbortError';
  return err;
}
