import {
  InputGuardrailTripwireTriggered,
  MaxTurnsExceededError,
  ModelBehaviorError,
  OutputGuardrailTripwireTriggered,
} from '@openai/agents';
import { AgentKernelError, describeError, ModelError, RunnerError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/** Maps the SDK's and the OpenAI client's errors onto ours, with a readable message. */
export function mapOpenAIError(err: unknown, agent: string): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (isCutStream(err)) {
    return new ModelError(`The model response was cut off: ${describeCut(err)}`, { cause: err });
  }
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number') {
    const detail = describeError(err).replace(/^\d{3}\s+/, '');
    return new ModelError(`The model request failed with HTTP ${status}: ${detail}`, {
      status,
      cause: err,
    });
  }
  if (err instanceof MaxTurnsExceededError) {
    return new RunnerError(`Agent "${agent}" exceeded its maximum number of turns.`, {
      code: 'max-turns-exceeded',
      cause: err,
    });
  }
  if (
    err instanceof InputGuardrailTripwireTriggered ||
    err instanceof OutputGuardrailTripwireTriggered
  ) {
    return new RunnerError(`A guardrail of agent "${agent}" blocked the run.`, {
      code: 'guardrail-blocked',
      cause: err,
    });
  }
  if (err instanceof ModelBehaviorError) {
    return new RunnerError(
      `The model answered in a way agent "${agent}" cannot use: ${err.message}`,
      {
        code: 'model-behavior-error',
        cause: err,
      },
    );
  }
  const name = (err as { constructor?: { name?: string } })?.constructor?.name;
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    return new ModelError(`The model endpoint could not be reached: ${describeError(err)}`, {
      cause: err,
    });
  }
  return err;
}
