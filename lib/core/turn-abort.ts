/**
 * A turn's abort signal, made only once something reads it: a drained turn's runner passes only
 * the caller's signal on (RunnerInput.callerSignal), and an AbortController per turn (with
 * `AbortSignal.any` over the caller's) cost more than the rest of the turn's setup.
 */
export class TurnAbort {
  readonly #caller: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;

  constructor(caller?: AbortSignal) {
    this.#caller = caller;
  }

  /** Aborts when the turn fails, halts or its consumer goes away, and when the caller's does. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const own = this.#own().signal;
      // AbortSignal.any adds no listener to the caller's signal, which may outlive many runs.
      this.#signal = this.#caller ? AbortSignal.any([own, this.#caller]) : own;
    }
    return this.#signal;
  }

  abort(reason: unknown): void {
    this.#own().abort(reason);
  }

  /** `signal.throwIfAborted()`, without making the signal while nothing can have aborted it. */
  throwIfAborted(): void {
    if (this.#signal || this.#controller || this.#caller?.aborted) this.signal.throwIfAborted();
  }

  #own(): AbortController {
    this.#controller ??= new AbortController();
    return this.#controller;
  }
}
