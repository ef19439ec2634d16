/**
 * A client's view of one run's `events` messages: in seq order, each seq once. A reconnect
 * (`subscribe` with `afterSeq`) gets the stored messages and the live ones from two senders, so
 * a seq may come twice (same content) and a live one before an older stored one; a fan-out retry
 * re-sends a seq too. Feed every message of the run to `accept`: it answers the ones now ready,
 * gap-free from `afterSeq + 1`, and `ended` once the terminal event's message is among them.
 * A void marker (`from` set, at a seq no attempt sent: the seqs before it back to `from` are ones
 * an attempt that stopped may have sent, never stored) covers `from…seq`: it is handed out when
 * the client waits for a seq in its range, then the client waits for `seq + 1`.
 */

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

export interface Sequenced {
  readonly seq: number;
  readonly from?: number | undefined;
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
    const at = Math.max(message.from ?? message.seq, this.#next);
    if (this.#ended || message.seq < this.#next) return [];
    // A seq had is dropped, but a marker replaces a message it closes (a stopped attempt's).
    const held = this.#held.get(at);
    if (held && (held.from !== undefined || message.from === undefined)) return [];
    // A marker whose range holds the seq waited for is ready now.
    this.#held.set(at, message);
    const ready: M[] = [];
    for (let m = this.#held.get(this.#next); m !== undefined; m = this.#held.get(this.#next)) {
      this.#held.delete(this.#next);
      const next = m.seq + 1;
      // Held messages the marker covers (an attempt's seqs it closed) go with it.
      for (let s = this.#next + 1; s < next; s++) this.#held.delete(s);
      this.#next = next;
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
