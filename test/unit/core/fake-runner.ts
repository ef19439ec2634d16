import { expect } from 'vitest';
import {
  Agent,
  type AgentConfig,
  AgentKernelError,
  InMemorySessionStore,
  type JsonValue,
  type ReservedRunOptions,
  type Runner,
  type RunnerInput,
  type RunnerStream,
  type SessionData,
  type StreamEvent,
  StreamEventSchema,
  type Usage,
} from '../../../lib/index.js';

/**
 * A scripted Runner for unit tests of the Runtime. Each turn takes the next queued script (or the
 * default one): it walks its steps (yield an event, wait on a gate, call back, fail), honours the
 * run's AbortSignal while waiting, and returns `{ history }` in its session slot: the previous
 * history, this turn's request texts, then the reply text.
 */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event without its runId: the runner fills in the run's id. */
export type ScriptEvent = DistributiveOmit<StreamEvent, 'runId'>;

export type Step =
  | { readonly event: ScriptEvent }
  /** Waits for the promise; rejects with the signal's reason if the run is aborted first. */
  | { readonly wait: Promise<unknown> }
  | { readonly fail: unknown }
  /** Yields the value as it is (no runId filled in): a misbehaving runner. */
  | { readonly raw: unknown }
  | { readonly call: (input: RunnerInput) => unknown };

export interface TurnScript {
  readonly steps?: readonly Step[];
  /** Reply text; defaults to `echo: <request texts>`. */
  readonly text?: string;
  readonly output?: unknown;
  readonly usage?: Usage;
  /** Replaces the default `{ history }` slot. */
  readonly state?: JsonValue;
  /** The context to return; defaults to the input's context as the runner left it. */
  readonly context?: (input: RunnerInput) => Record<string, unknown>;
}

export interface FakeState {
  history: string[];
}

/** How a turn's runner generator ended. */
export type Outcome = 'completed' | 'failed' | 'closed';

export interface FakeRunnerOptions {
  name?: string;
  reservedRunOptions?: ReservedRunOptions;
  /** Shared call log: the runner appends `<name>:start` and `<name>:end`. */
  log?: string[];
  /** Declares no token streaming (default true). */
  supportsStreaming?: boolean;
}

export class FakeRunner implements Runner<unknown> {
  readonly name: string;
  readonly supportsStreaming: boolean;
  readonly supportsPause = false;
  readonly reservedRunOptions: ReservedRunOptions;
  /** Every RunnerInput received, in call order. */
  readonly inputs: RunnerInput[] = [];
  readonly outcomes: Outcome[] = [];
  active = 0;
  maxActive = 0;
  readonly #log: string[] | undefined;
  readonly #queue: TurnScript[] = [];

  constructor(options: FakeRunnerOptions = {}) {
    this.name = options.name ?? 'fake';
    this.reservedRunOptions = options.reservedRunOptions ?? {};
    this.supportsStreaming = options.supportsStreaming ?? true;
    this.#log = options.log;
  }

  /** Queues scripts for the next turns; turns past the queue use the default script. */
  script(...turns: TurnScript[]): this {
    this.#queue.push(...turns);
    return this;
  }

  async *stream(input: RunnerInput): RunnerStream {
    const script = this.#queue.shift() ?? {};
    this.inputs.push(input);
    this.#log?.push(`${this.name}:start`);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    let outcome: Outcome = 'closed';
    try {
      for (const step of script.steps ?? []) {
        input.signal.throwIfAborted();
        if ('event' in step) yield { ...step.event, runId: input.runId } as StreamEvent;
        else if ('wait' in step) await untilAborted(step.wait, input.signal);
        else if ('fail' in step) throw step.fail;
        else if ('raw' in step) yield step.raw as StreamEvent;
        else await step.call(input);
      }
      const texts = input.requests.flatMap((r) => (r.type === 'text' ? [r.text] : []));
      const text = script.text ?? `echo: ${texts.join(' ')}`;
      const previous = (input.state as FakeState | undefined)?.history ?? [];
      this.#log?.push(`${this.name}:end`);
      outcome = 'completed';
      return {
        status: 'completed',
        text,
        ...(script.output === undefined ? {} : { output: script.output }),
        ...(script.usage ? { usage: script.usage } : {}),
        state: script.state ?? { history: [...previous, ...texts, text] },
        context: script.context ? script.context(input) : input.context,
      };
    } catch (err) {
      outcome = 'failed';
      throw err;
    } finally {
      this.active -= 1;
      this.outcomes.push(outcome);
    }
  }
}

function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A promise the test opens by hand. */
export class Gate {
  readonly promise: Promise<void>;
  opened = false;
  #resolve!: () => void;

  constructor() {
    this.promise = new Promise<void>((resolve) => {
      this.#resolve = resolve;
    });
  }

  open(): void {
    this.opened = true;
    this.#resolve();
  }
}

export function fakeAgent(
  runner: FakeRunner,
  config: Partial<Omit<AgentConfig<unknown>, 'runner'>> = {},
): Agent<unknown> {
  return new Agent({ name: 'echo', native: {}, ...config, runner });
}

/**
 * Drains a runtime stream. Every event must match StreamEventSchema, and the stream must end with
 * exactly one terminal event, so every streaming test checks the event contract as well.
 */
export async function collect(
  stream: AsyncIterable<StreamEvent>,
  onEvent?: (event: StreamEvent) => unknown,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    StreamEventSchema.parse(event);
    events.push(event);
    await onEvent?.(event);
  }
  const terminal = events.filter((e) =>
    ['run-finished', 'run-error', 'run-paused'].includes(e.type),
  );
  if (terminal.length !== 1 || terminal[0] !== events.at(-1)) {
    throw new Error(`stream did not end with one terminal event: ${types(events).join(', ')}`);
  }
  return events;
}

export function types(events: readonly StreamEvent[]): string[] {
  return events.map((e) => e.type);
}

/** The last event, narrowed to a type (fails the test when it is another one). */
export function last<T extends StreamEvent['type']>(
  events: readonly StreamEvent[],
  type: T,
): Extract<StreamEvent, { type: T }> {
  const event = events.at(-1);
  if (event?.type !== type) throw new Error(`expected ${type} last, got ${event?.type}`);
  return event as Extract<StreamEvent, { type: T }>;
}

/** Lets every pending microtask and I/O callback run (no wall-clock waits). */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** The fake runner's history in a stored session. */
export function historyOf(data: SessionData | undefined, runner = 'fake'): string[] | undefined {
  return (data?.state[runner] as FakeState | undefined)?.history;
}

/** An in-memory store that appends `save` to a call log. */
export class RecordingStore extends InMemorySessionStore {
  readonly #log: string[];

  constructor(log: string[]) {
    super();
    this.#log = log;
  }

  override async save(data: SessionData, expectedVersion: number): Promise<number> {
    this.#log.push('save');
    return super.save(data, expectedVersion);
  }
}

/** The AgentKernelError a promise rejects with (fails the test if it resolves or throws another). */
export async function failureOf(promise: Promise<unknown>): Promise<AgentKernelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentKernelError);
  return err as AgentKernelError;
}
