import { describe, expect, it } from 'vitest';
import {
  Agent,
  InProcessSessionLock,
  type Release,
  type Runner,
  type RunnerInput,
  type RunnerResumeInput,
  type RunnerStream,
  Runtime,
  type SessionLock,
  type Span,
  type Tracer,
} from '../../../lib/core/index.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, fakeAgent, historyOf, RecordingStore } from './fake-runner.js';

// Once the turn's outcome is stored the turn is done: later best-effort steps cannot fail it.

/** Hands the session back, then fails, like a lease release throttled past its retries. */
class FailingReleaseLock implements SessionLock {
  readonly #inner = new InProcessSessionLock();
  releases = 0;

  async acquire(sessionId: string, signal?: AbortSignal): Promise<Release> {
    const release = await this.#inner.acquire(sessionId, signal);
    return async () => {
      this.releases++;
      await release();
      throw new Error('lease release throttled');
    };
  }
}

/** Records every span's name and the messages of the errors recorded on it. */
class RecordingTracer implements Tracer {
  readonly spans: { name: string; errors: string[] }[] = [];

  startSpan(name: string): Span {
    const record = { name, errors: [] as string[] };
    this.spans.push(record);
    return {
      setAttributes() {},
      setPayload() {},
      recordError: (err: unknown) => record.errors.push((err as Error).message),
      end() {},
      traceHeader: () => undefined,
    };
  }

  errorsOf(name: string): string[] {
    return this.spans.filter((s) => s.name === name).flatMap((s) => s.errors);
  }
}

function setup() {
  const log: string[] = [];
  const store = new RecordingStore(log);
  const lock = new FailingReleaseLock();
  const tracer = new RecordingTracer();
  const runner = new FakeRunner();
  const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)], lock, tracer });
  return { log, store, lock, tracer, runtime };
}

describe('a session lock whose release fails after the save', () => {
  it('run returns the stored reply; the session is stored once and the failure is traced', async () => {
    // Prepare
    const { log, store, lock, tracer, runtime } = setup();

    // Act
    const reply = await runtime.run('echo', 's1', 'hello');

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'echo: hello' });
    expect(log).toEqual(['save']);
    expect(lock.releases).toBe(1);
    expect(historyOf((await store.load('s1'))?.data)).toEqual(['hello', 'echo: hello']);
    expect(tracer.errorsOf('session-lease-release')).toEqual(['lease release throttled']);
    expect(tracer.errorsOf('run')).toEqual([]);
  });

  it('stream ends with run-finished, not run-error', async () => {
    // Prepare
    const { log, runtime } = setup();

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hello'));

    // Assess
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'echo: hello' } });
    expect(events.filter((e) => e.type === 'run-error')).toEqual([]);
    expect(log).toEqual(['save']);
  });
});

/** Pauses every new turn on one approval; a resume completes. */
class ApprovalRunner implements Runner<unknown> {
  readonly name = 'approval';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = {};

  // biome-ignore lint/correctness/useYield: a runner that pauses before any event
  async *stream(input: RunnerInput): RunnerStream {
    return {
      status: 'paused',
      interruptions: [{ id: 'call-1', kind: 'tool-approval', toolName: 'refund' }],
      pausedState: {},
      context: input.context,
    };
  }

  // biome-ignore lint/correctness/useYield: a resume with no events of its own
  async *resumeStream(input: RunnerResumeInput): RunnerStream {
    return { status: 'completed', text: 'refunded', state: {}, context: input.context };
  }
}

/** A paused-run store whose delete (after the resumed turn's save) fails. */
class FailingDeleteStore extends InMemoryPausedRunStore {
  override async delete(): Promise<void> {
    throw new Error('paused-run delete throttled');
  }
}

describe('a resumed run whose paused-run delete fails after the save', () => {
  it('resume returns the stored reply and the failure is traced', async () => {
    // Prepare
    const log: string[] = [];
    const sessions = new RecordingStore(log);
    const tracer = new RecordingTracer();
    const runtime = new Runtime({
      sessions,
      pausedRuns: new FailingDeleteStore(),
      tracer,
      agents: [new Agent({ name: 'refunds', native: {}, runner: new ApprovalRunner() })],
    });
    await runtime.run('refunds', 's1', 'refund order 7', { runId: 'r1' });
    log.length = 0;

    // Act
    const reply = await runtime.resume('s1', 'r1', [{ id: 'call-1', status: 'approved' }]);

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'refunded' });
    expect(log).toEqual(['save']);
    expect((await sessions.load('s1'))?.data.paused ?? []).toEqual([]);
    expect(tracer.errorsOf('paused-run-delete')).toEqual(['paused-run delete throttled']);
  });
});
