import { describe, expect, it } from 'vitest';
import { Runtime, startChildSpan, traceChild, withActiveSpan } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  type CloudWatchSpan,
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import { collect, FakeRunner, fakeAgent } from '../core/fake-runner.js';
import { expectValidEmf, splitLines } from './helpers.js';

function setup(env: Record<string, string> = {}) {
  const docs: SegmentDocument[] = [];
  const lines: string[] = [];
  const tracer = new CloudWatchTracer({
    env: { AGENT_KERNEL_LOG_LEVEL: 'debug', ...env },
    emitter: { send: (d) => docs.push(...flattenSegment(d)) },
    sink: (line) => lines.push(line),
  });
  return { tracer, docs, lines };
}

const kinds = (docs: readonly SegmentDocument[]) => docs.map((d) => d.annotations?.kind);

describe('CloudWatchTracer with the Runtime', () => {
  it('nests hook, model and tool spans under the run and logs with the request ids', async () => {
    // Prepare
    const { tracer, docs, lines } = setup();
    const runner = new FakeRunner().script({
      steps: [
        {
          call: async () => {
            startChildSpan('model', 'model', { inputTokens: 5, outputTokens: 7 }).end();
            await traceChild('lookup', 'tool', { tool: 'lookup' }, async () => {
              tracer.logger.info('inside the tool', { city: 'Oslo' });
            });
          },
        },
      ],
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(runner)],
      tracer,
      preHooks: [{ name: 'audit', onRun: () => {} }],
      postHooks: [{ name: 'polish', onRun: () => undefined }],
    });
    const handler = tracer.startSpan('ws-message', { requestId: 'req-9' }) as CloudWatchSpan;

    // Act
    const reply = await withActiveSpan(tracer, handler, () => runtime.run('echo', 's-1', 'hi'));
    handler.end();

    // Assess
    expect(kinds(docs)).toEqual(['internal', 'run', 'hook', 'model', 'tool', 'hook']);
    const run = docs.find((d) => d.name === 'run')!;
    expect(run).toMatchObject({ parent_id: handler.id, trace_id: handler.traceId });
    expect(docs.filter((d) => d !== run && d.name !== 'agent-kernel')).toEqual(
      expect.arrayContaining([expect.objectContaining({ parent_id: run.id })]),
    );
    expect(docs.find((d) => d.name === 'pre-hook')?.annotations).toMatchObject({
      hook: 'audit',
      requestId: 'req-9',
      runId: reply.runId,
    });
    const { emf, logs } = splitLines(lines);
    const inside = logs.find((l) => l.message === 'inside the tool');
    expect(inside).toMatchObject({
      level: 'info',
      city: 'Oslo',
      requestId: 'req-9',
      sessionId: 's-1',
      runId: reply.runId,
      agent: 'echo',
      traceId: handler.traceId,
    });
    // One EMF line for the run (the handler span has no metrics of its own).
    expect(emf).toHaveLength(1);
    expectValidEmf(emf[0]!);
    expect(emf[0]).toMatchObject({
      agent: 'echo',
      framework: 'fake',
      requestId: 'req-9',
      InputTokens: 5,
      OutputTokens: 7,
      ToolCalls: 1,
      RunErrors: 0,
    });
  });

  it('measures time to first event of a stream and marks a halted run', async () => {
    // Prepare
    const { tracer, lines, docs } = setup();
    const runner = new FakeRunner().script({
      steps: [
        { event: { type: 'step-start', stepId: 's' } },
        { event: { type: 'step-end', stepId: 's' } },
      ],
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [
        fakeAgent(runner),
        fakeAgent(new FakeRunner(), {
          name: 'halts',
          preHooks: [{ name: 'stop', onRun: () => ({ halt: { text: 'no' } }) }],
        }),
      ],
      tracer,
    });

    // Act
    await collect(runtime.stream('echo', 's-2', 'hi'));
    await runtime.run('halts', 's-3', 'hi');

    // Assess
    const [streamed, halted] = splitLines(lines).emf;
    expect(streamed?.TimeToFirstEvent).toEqual(expect.any(Number));
    expect(streamed?.TimeToFirstEvent as number).toBeLessThanOrEqual(
      streamed?.RunDuration as number,
    );
    expect(halted).toMatchObject({ agent: 'halts', RunErrors: 0 });
    expect(
      docs.filter((d) => d.annotations?.kind === 'run').map((d) => d.annotations?.outcome),
    ).toEqual(['completed', 'halted']);
  });
});

describe('CloudWatchTracer metrics by span kind', () => {
  it('counts paused and resumed runs, tool errors but not paused tool calls', () => {
    // Prepare
    const { tracer, lines } = setup();
    const run = tracer.startSpan('run', { agent: 'a', framework: 'f' }, { kind: 'run' });

    // Act
    withActiveSpan(tracer, run, () => {
      const failed = startChildSpan('t1', 'tool', { tool: 't1' });
      failed.setAttributes({ outcome: 'error' });
      failed.recordError(new Error('boom'));
      failed.end();
      const paused = startChildSpan('t2', 'tool', { tool: 't2' });
      paused.setAttributes({ outcome: 'paused' });
      paused.recordError(new Error('needs approval'));
      paused.end();
    });
    run.setAttributes({ outcome: 'paused', resumed: true });
    run.end();

    // Assess
    const [line] = splitLines(lines).emf;
    expect(line).toMatchObject({ ToolCalls: 2, ToolErrors: 1, RunsPaused: 1, RunsResumed: 1 });
    expect(line?.ToolDuration).toHaveLength(2);
  });

  it('counts deliveries and delivery failures on a fan-out span', () => {
    // Prepare
    const { tracer, lines, docs } = setup();

    // Act
    tracer.startSpan('delivery', { events: 12, connections: 3 }).end();
    const failed = tracer.startSpan('delivery', { events: 4 });
    failed.recordError(new Error('gone'));
    failed.end();

    // Assess
    const emf = splitLines(lines).emf;
    expect(emf.map(expectValidEmf)).toHaveLength(2);
    expect(emf[0]).toMatchObject({ EventsDelivered: 12, DeliveryFailures: 0 });
    expect(emf[1]).toMatchObject({ EventsDelivered: 0, DeliveryFailures: 1 });
    expect(emf[0]?._aws).toMatchObject({ CloudWatchMetrics: [{ Dimensions: [[]] }] });
    expect(docs[0]).toMatchObject({ annotations: { kind: 'delivery', span: 'delivery' } });
  });

  it("carries a root run's metrics in its run line: one line per run", () => {
    // Prepare
    const loud = setup();
    const quiet = setup({ AGENT_KERNEL_LOG_LEVEL: 'warn' });

    // Act
    for (const { tracer } of [loud, quiet]) {
      tracer.startSpan('run', { agent: 'a', runId: 'r-1' }, { kind: 'run' }).end();
      const failed = tracer.startSpan('run', { agent: 'a', runId: 'r-2' }, { kind: 'run' });
      failed.recordError(new Error('boom'));
      failed.end();
    }

    // Assess: each line is a valid EMF document and the run's log line at once
    const lines = loud.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    for (const line of lines) expectValidEmf(line);
    expect(lines).toMatchObject([
      { message: 'run finished', level: 'info', runId: 'r-1', RunErrors: 0, kind: 'run' },
      { message: 'run failed', level: 'error', runId: 'r-2', RunErrors: 1, kind: 'run' },
    ]);
    // A logger above `info` drops the finished run's line, not its metrics.
    const { emf, logs } = splitLines(quiet.lines);
    expect(emf.map((l) => [l.runId, l.RunErrors, 'message' in l])).toEqual([
      ['r-1', 0, false],
      ['r-2', 1, true],
    ]);
    expect(logs.map((l) => l.message)).toEqual(['run failed']);
  });

  it("keeps a run's metrics on a line of their own for a caller's logger", () => {
    // Prepare: a LogPort of the caller's, which knows nothing of carried fields
    const lines: string[] = [];
    const logged: string[] = [];
    const log = (_level: string, message: string) => void logged.push(message);
    const tracer = new CloudWatchTracer({
      env: { AGENT_KERNEL_XRAY: 'false' },
      sink: (line) => lines.push(line),
      logger: {
        enabled: () => true,
        log,
        debug: (m) => log('debug', m),
        info: (m) => log('info', m),
        warn: (m) => log('warn', m),
        error: (m) => log('error', m),
      },
    });

    // Act
    tracer.startSpan('run', { agent: 'a', runId: 'r-1' }, { kind: 'run' }).end();

    // Assess
    expect(logged).toEqual(['run finished']);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([{ runId: 'r-1', RunErrors: 0 }]);
  });

  it('writes a line of its own for a child that ends after its run', () => {
    // Prepare
    const { tracer, lines } = setup();
    const run = tracer.startSpan('run', { agent: 'a' }, { kind: 'run' });
    const straggler = tracer.startSpan('t', { tool: 't' }, { kind: 'tool', parent: run });

    // Act
    run.end();
    straggler.end();

    // Assess
    const emf = splitLines(lines).emf;
    expect(emf).toHaveLength(2);
    expect(emf[1]).toMatchObject({ agent: 'a', ToolCalls: 1 });
  });
});

describe('CloudWatchTracer safety', () => {
  it('never fails a run when the emitter throws, and ends a span once', () => {
    // Prepare
    const lines: string[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: {
        send: () => {
          throw new Error('socket gone');
        },
      },
      sink: (line) => lines.push(line),
    });
    const span = tracer.startSpan('run', {}, { kind: 'run' });

    // Act
    const end = () => {
      span.end();
      span.end();
    };

    // Assess
    expect(end).not.toThrow();
  });

  it('sends nothing at sample rate 0 and nothing to X-Ray when xray is off', () => {
    // Prepare
    const none = setup({ AGENT_KERNEL_TRACE_SAMPLE_RATE: '0' });
    const off = setup({ AGENT_KERNEL_XRAY: 'false' });

    // Act
    none.tracer.startSpan('run', {}, { kind: 'run' }).end();
    off.tracer.startSpan('run', {}, { kind: 'run' }).end();

    // Assess
    expect(none.docs).toEqual([]);
    expect(off.docs).toEqual([]);
    expect(splitLines(none.lines).emf).toHaveLength(1);
  });

  it('keeps payloads out unless asked, and logs below the level are dropped', () => {
    // Prepare
    const { tracer, docs, lines } = setup({ AGENT_KERNEL_LOG_LEVEL: 'warn' });

    // Act
    const span = tracer.startSpan('t', {}, { kind: 'tool' });
    span.setPayload('input', { city: 'Rome' });
    span.end();
    tracer.logger.info('quiet');
    tracer.logger.warn('loud');

    // Assess
    expect(JSON.stringify(docs)).not.toContain('Rome');
    expect(splitLines(lines).logs.map((l) => l.message)).toEqual(['loud']);
  });
});
