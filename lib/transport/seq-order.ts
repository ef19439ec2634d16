/**
 * A client's view of one run's `events` messages: in seq order, each seq once. A reconnect
 * (`subscribe` with `afterSeq`) gets the stored messages and the live ones from two senders, so
 * a seq may come twice (same content) and a live one before an older stored one; a fan-out retry
 * re-sends a seq too. Feed every message of the run to `accept`: it answers the ones now ready,
 * gap-free from `afterSeq + 1`, and `ended` once the terminal event's message is among them.
 */

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

export interface Sequenced {
  readonly seq: number;
  readonly events: readonly { readonly type: string }[];
}

export class SeqOrder<M extends Sequenced> {
  readonly #held = new Map<number, M>();
  #next: number;
  #ended = false;

  /** `afterSeq`: the last seq the client has (−1: none). */
  constructor(afterSeq = -1) {
    this.#next = afterSeq + 1;
  }

  /** The seq the client waits for next. */
  get next(): number {
    return this.#next;
  }

  /** The terminal event's message was handed out: nothing follows it. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Messages held back, waiting for an older seq. */
  get waiting(): number {
    return this.#held.size;
  }

  /** The messages ready in order after this one arrived (none when it is a seq already had). */
  accept(message: M): M[] {
    if (this.#ended || message.seq < this.#next || this.#held.has(message.seq)) return [];
    this.#held.set(message.seq, message);
    const ready: M[] = [];
    for (let m = this.#held.get(this.#next); m !== undefined; m = this.#held.get(this.#next)) {
      this.#held.delete(this.#next);
      this.#next++;
      ready.push(m);
      if (m.events.some((e) => TERMINAL.has(e.type))) {
        this.#ended = true;
        this.#held.clear();
        break;
      }
    }
    return ready;
  }
}
