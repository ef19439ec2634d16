/**
 * Serialises the turns of one session. The in-process lock covers one Runtime instance; the
 * DynamoDB lease (lib/stores/dynamodb) implements the same port across Lambda instances.
 */
export type Release = () => Promise<void>;

export interface SessionLock {
  acquire(sessionId: string, signal?: AbortSignal): Promise<Release>;
}

/** A turn waiting for its session: granted the release, or dropped from the queue on abort. */
type Waiter = (release: Release) => void;

/**
 * A FIFO mutex per session id. An entry exists while a turn holds the session and lists the
 * turns waiting for it; it is dropped when the last one releases. An uncontended acquire (the
 * usual case) waits for nothing: no promise chain per turn.
 */
export class InProcessSessionLock implements SessionLock {
  readonly #queues = new Map<string, Waiter[]>();

  async acquire(sessionId: string, signal?: AbortSignal): Promise<Release> {
    // Before taking a place in the queue: a place that is never released blocks the session.
    signal?.throwIfAborted();
    const queue = this.#queues.get(sessionId);
    if (!queue) {
      this.#queues.set(sessionId, []);
      return this.#releaseFor(sessionId);
    }
    return this.#wait(queue, signal);
  }

  #wait(queue: Waiter[], signal: AbortSignal | undefined): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = (release) => {
        // A caller may reuse one signal for many turns: leave no listener behind.
        signal?.removeEventListener('abort', onAbort);
        resolve(release);
      };
      function onAbort(): void {
        // Give up our place, so the queue behind us is not stuck.
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason);
      }
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands the session to the next waiter, or frees it; a second call does nothing. */
  #releaseFor(sessionId: string): Release {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const queue = this.#queues.get(sessionId);
      const next = queue?.shift();
      if (next) next(this.#releaseFor(sessionId));
      else this.#queues.delete(sessionId);
    };
  }
}
