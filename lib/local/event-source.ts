import type { SQSClient } from '@aws-sdk/client-sqs';
import { newPollState, pollOnce, type RetryDelay, release, type SqsHandler } from './sqs-poller.js';

/*
 * The local stack's event source mappings: `pollOnce` (Lambda's batch semantics) over and over,
 * woken by sends as Lambda's event source mapping is.
 */

export interface Poller {
  /** Finishes the poll in progress (and its handler call), then stops. */
  stop(): Promise<void>;
}

/** Subscribes to "a message was just sent to this queue"; answers the unsubscribe. */
export type Wake = (listener: () => void) => () => void;

/**
 * An event source mapping for the local stack: polls the queue over and over and hands each
 * batch to the handler as `pollOnce` does, keeping FIFO groups in order across polls. A poll that
 * fails (the endpoint is restarting) is logged and tried again after a pause. Stopping gives held
 * messages back to the queue.
 *
 * With `wake` (local-aws-sqs's `onSend` for this queue) it polls as soon as a message is sent,
 * as Lambda's event source mapping does, and every `idlePollMs` (1 s) as a fallback. Without it,
 * it long-polls. local-aws-sqs answers a receive only when it holds MaxNumberOfMessages messages
 * or after the wait plus 40 ms, so a receive asks for as many messages as were sent and not yet
 * received (at least 1, at most 10): it is answered within ~10 ms of their arrival.
 */
export function startPoller(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: {
    batchSize?: number;
    waitSeconds?: number;
    retryDelayMs?: RetryDelay;
    onError?: (err: unknown) => void;
    wake?: Wake;
    idlePollMs?: number;
  } = {},
): Poller {
  let running = true;
  const state = newPollState();
  const signal = wakeSignal(options.wake);
  const loop = (async () => {
    /** Messages sent and not received yet, as far as the sends tell. */
    let expected = 0;
    while (running) {
      try {
        expected += signal.take();
        const ask = Math.min(10, Math.max(1, expected));
        const result = await pollOnce(sqs, queueUrl, handler, {
          batchSize: options.batchSize,
          waitSeconds: options.wake ? 0 : (options.waitSeconds ?? 1),
          ...(options.wake ? { receiveMax: ask } : {}),
          state,
          ...(options.retryDelayMs ? { retryDelayMs: options.retryDelayMs } : {}),
        });
        // Fewer than asked: the queue had no more (a send's count may be off; this resets it).
        expected = result.fetched < ask ? 0 : expected - result.fetched;
        if (result.received > 0 || expected > 0 || !running) continue;
        // Only messages in their backoff: no busy loop (the long poll answers at once then).
        if (state.pending.size > 0) await signal.wait(50);
        else if (options.wake) await signal.wait(options.idlePollMs ?? 1000);
      } catch (err) {
        options.onError?.(err);
        await sleep(500);
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      signal.close();
      await loop;
      await release(sqs, queueUrl, state).catch(() => undefined);
    },
  };
}

/** Counts sends; a send since the last `take` ends the next `wait` at once. */
function wakeSignal(wake: Wake | undefined) {
  let sends = 0;
  let resolveWait: (() => void) | undefined;
  const fire = () => {
    sends += 1;
    resolveWait?.();
  };
  const unsubscribe = wake?.(fire);
  return {
    take: () => {
      const taken = sends;
      sends = 0;
      return taken;
    },
    wait: (ms: number) =>
      sends > 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, ms);
            function done() {
              clearTimeout(timer);
              resolveWait = undefined;
              resolve();
            }
            resolveWait = done;
          }),
    close: () => {
      unsubscribe?.();
      fire();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
