/**
 * Serialises the turns of one session. The in-process lock covers one Runtime instance; the
 * DynamoDB lease (lib/stores/dynamodb) implements the same port across Lambda instances.
 */
export type Release = () => Promise<void>;

export interface SessionLock {
  acquire(sessionId: string, signal?: AbortSignal): Promise<Release>;
}

/** A FIFO mutex per session id; entries are dropped when no turn holds or waits for them. */
export class InProcessSessionLock implements SessionLock {
  readonly #tails = new Map<string, Promise<void>>();

  async acquire(sessionId: string, signal?: AbortSignal): Promise<Release> {
    // Before taking a place in the queue: a place that is never released blocks the session.
    signal?.throwIfAborted();
    const previous = this.#tails.get(sessionId) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(sessionId, tail);
    const release: Release = async () => {
      unlock();
      // Only the last waiter may delete the entry, or a queued turn would lose its place.
      if (this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId);
    };
    if (signal) {
      let onAbort!: () => void;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        await Promise.race([previous, aborted]);
      } catch (err) {
        // Hand our place on once our turn comes, so the queue behind us is not stuck.
        void previous.then(release);
        throw err;
      } finally {
        // A caller may reuse one signal for many turns: leave no listener behind.
        signal.removeEventListener('abort', onAbort);
      }
    } else {
      await previous;
    }
    return release;
  }
}
