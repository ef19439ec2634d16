import type { Usage } from '../../core/requests.js';
import { mapMastraError } from './errors.js';
import type { GenerateOutput } from './generated.js';
import type { MastraNativeAgent } from './native.js';
import type { toHistory } from './state.js';

export type StreamOutput = Awaited<ReturnType<MastraNativeAgent['stream']>>;

/** How a turn's Mastra run ended, streamed or generated: the runner reads both the same way. */
export interface Ended {
  readonly status: string;
  readonly error?: unknown;
  readonly runId: string;
  usage(): PromiseLike<Parameters<typeof toUsage>[0]> | Parameters<typeof toUsage>[0];
  text(): Promise<string> | string;
  messages(): Parameters<typeof toHistory>[0];
}

/** `agent.generate` with its failure mapped to the kernel's errors. */
export async function generated(start: () => Promise<GenerateOutput>): Promise<GenerateOutput> {
  try {
    return await start();
  } catch (err) {
    throw mapMastraError(err);
  }
}

export function endedStream(output: StreamOutput): Ended {
  return {
    status: output.status,
    error: output.error,
    runId: output.runId,
    usage: () => output.totalUsage,
    text: () => output.text,
    messages: () => output.messageList.get.all.db(),
  };
}

/** generate throws a failed run; a suspended one reports it by its finish reason. */
export function endedGenerate(output: GenerateOutput): Ended {
  return {
    status: output.finishReason === 'suspended' ? 'suspended' : 'success',
    runId: output.runId ?? '',
    usage: () => output.totalUsage,
    text: () => output.text,
    messages: () => output.messages,
  };
}

export function toUsage(
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined,
): Usage | undefined {
  if (!usage?.inputTokens && !usage?.outputTokens) return undefined;
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
}
