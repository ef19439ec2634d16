import type {
  JsonValue,
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerStream,
} from '../../../lib/core/index.js';

/**
 * A trivial runner for store tests: appends each request's text to `history` in its session slot
 * and counts its invocations, so a test can tell a lost turn from one that ran twice.
 */
export class HistoryRunner implements Runner<null> {
  readonly name = 'history';
  readonly supportsStreaming = true;
  readonly supportsPause = false;
  readonly reservedRunOptions = {};
  readonly calls: string[] = [];

  async run(input: RunnerInput<null>): Promise<RunnerResult> {
    const previous = (input.state as { history?: string[] } | undefined)?.history ?? [];
    const texts = input.requests.flatMap((r) => (r.type === 'text' ? [r.text] : []));
    this.calls.push(...texts);
    // A little real time inside the turn, so overlapping turns would show.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const history = [...previous, ...texts];
    return {
      status: 'completed',
      text: `seen ${history.length}`,
      state: { history } satisfies JsonValue,
      context: input.context,
    };
  }

  async *stream(input: RunnerInput<null>): RunnerStream {
    // No events of its own: the turn's result is all it streams.
    yield* [];
    return await this.run(input);
  }
}
