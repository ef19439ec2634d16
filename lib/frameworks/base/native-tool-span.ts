import { activeSpan, type Span, startChildSpan, withChildSpan } from '../../core/tracer.js';
import { ApprovalPending } from '../../tools/errors.js';

/** One call of a framework's own tool (it never reaches our executor). */
export interface NativeToolCall {
  readonly tool: string;
  readonly callId?: string | undefined;
  readonly input?: unknown;
}

export interface NativeToolSpanOptions<T> {
  /**
   * The failure a framework turned into a result (Strands' `status: 'error'` block); undefined
   * for a success. Thrown errors are failures without it.
   */
  readonly failureOf?: (result: T) => unknown;
  /** Errors that are the framework's control flow (LangGraph's interrupt): the call paused. */
  readonly isPause?: (error: unknown) => boolean;
}

/** True inside a traced run: only then is a native call worth a span. */
export function tracingActive(): boolean {
  return activeSpan() !== undefined;
}

/**
 * A native tool call's `tool` span, for a framework whose call is not one async function (a
 * Strands middleware generator): `within` runs each step of the call under it.
 */
export class NativeToolSpan {
  readonly #span: Span;
  #failure: unknown;
  #ended = false;

  constructor(call: NativeToolCall) {
    const attributes = { tool: call.tool, ...(call.callId ? { callId: call.callId } : {}) };
    this.#span = startChildSpan(call.tool, 'tool', attributes);
    if (call.input !== undefined) this.#span.setPayload('input', () => call.input);
  }

  within<T>(fn: () => T): T {
    return withChildSpan(this.#span, fn);
  }

  /** A failure the framework hides from us as a result (a guard's error shown to the model). */
  fail(error: unknown): void {
    this.#failure ??= error;
  }

  /** The call returned: a success unless `fail` was told otherwise. */
  succeed(result: unknown): void {
    if (this.#ended) return;
    if (this.#failure !== undefined) this.#span.recordError(this.#failure);
    else this.#span.setAttributes({ outcome: 'ok' });
    this.#span.setPayload('output', () => result);
    this.#end();
  }

  /** The call threw: a pause (ours or `isPause`) is `outcome: paused`, anything else a failure. */
  threw(error: unknown, isPause?: (error: unknown) => boolean): void {
    if (this.#ended) return;
    if (error instanceof ApprovalPending || isPause?.(error)) {
      this.#span.setAttributes({ outcome: 'paused' });
    } else this.#span.recordError(error);
    this.#end();
  }

  #end(): void {
    this.#ended = true;
    this.#span.end();
  }
}

/**
 * One native tool call as a `tool` span under the run's (what the executor opens for a ToolSpec):
 * a thrown error, or a failure the framework made a result of, is recorded (OTel status ERROR
 * with `error.type` and an exception event, X-Ray `fault`/`error`/`throttle`, EMF ToolErrors);
 * a pause is `outcome: paused`, not a failure. `run` gets `fail` for what it hides from the
 * framework itself (a guard's error shown to the model). Outside a traced run `run` simply runs.
 */
export async function traceNativeTool<T>(
  call: NativeToolCall,
  run: (fail: (error: unknown) => void) => Promise<T>,
  options: NativeToolSpanOptions<T> = {},
): Promise<T> {
  const span = new NativeToolSpan(call);
  try {
    const result = await span.within(() => run((error) => span.fail(error)));
    const failure = options.failureOf?.(result);
    if (failure !== undefined) span.fail(failure);
    span.succeed(result);
    return result;
  } catch (err) {
    span.threw(err, options.isPause);
    throw err;
  }
}
