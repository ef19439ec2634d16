import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SegmentDocument } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { expectValidEmf, splitLines, startFakeDaemon } from '../../unit/tracing/helpers.js';
import { tracedRuntime } from './setup.js';

const server = useScriptedModelServer();
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeEach(async () => {
  daemon = await startFakeDaemon();
});
afterEach(async () => {
  await daemon.close();
});

function scriptToolTurn() {
  server.push(
    { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }] },
    { text: 'Sunny in Paris.' },
  );
}

function byKind(docs: readonly SegmentDocument[], kind: string): SegmentDocument[] {
  return docs.filter((doc) => doc.annotations?.kind === kind);
}

describe('cloudwatch tracer through the Runtime (X-Ray daemon on UDP)', () => {
  it('sends a run segment with model and tool subsegments carrying the annotations', async () => {
    // Prepare
    const { runtime, tracer } = tracedRuntime(server, {
      env: { AWS_XRAY_DAEMON_ADDRESS: daemon.address },
    });
    scriptToolTurn();

    // Act
    const reply = await runtime.run('assistant', 's-tree', 'Weather in Paris?');
    const docs = await daemon.waitFor(4);
    await tracer.close();

    // Assess: one trace in one packet; the run is the root segment, the rest its subsegments.
    expect(reply).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    expect(daemon.packets).toHaveLength(1);
    expect(new Set(docs.map((doc) => doc.trace_id)).size).toBe(1);
    const [run] = byKind(docs, 'run');
    expect(run).toMatchObject({
      name: 'agent-kernel',
      annotations: {
        kind: 'run',
        span: 'run',
        agent: 'assistant',
        framework: 'openai',
        sessionId: 's-tree',
        runId: reply.runId,
        outcome: 'completed',
      },
    });
    expect(run?.type).toBeUndefined();
    expect(run?.parent_id).toBeUndefined();
    const models = byKind(docs, 'model');
    const tools = byKind(docs, 'tool');
    expect(models).toHaveLength(2);
    expect(tools).toHaveLength(1);
    for (const child of [...models, ...tools]) {
      expect(child).toMatchObject({
        type: 'subsegment',
        parent_id: run?.id,
        trace_id: run?.trace_id,
        annotations: { sessionId: 's-tree', runId: reply.runId, agent: 'assistant' },
      });
      expect(child.start_time).toBeGreaterThanOrEqual(run!.start_time);
      expect(child.end_time!).toBeLessThanOrEqual(run!.end_time!);
    }
    expect(models[0]).toMatchObject({
      name: 'model',
      namespace: 'remote',
      annotations: { model: 'scripted-model' },
    });
    expect(tools[0]).toMatchObject({
      name: 'get_weather',
      annotations: { tool: 'get_weather', callId: 'call_w1', outcome: 'ok' },
    });
    // The tool ran between the two model calls.
    expect(tools[0]!.start_time).toBeGreaterThanOrEqual(models[0]!.end_time!);
    expect(models[1]!.start_time).toBeGreaterThanOrEqual(tools[0]!.end_time!);
    // Payloads are off by default.
    expect(JSON.stringify(docs)).not.toContain('Paris');
  });

  it('writes one EMF line per run in the embedded metric format', async () => {
    // Prepare
    const { runtime, lines, tracer } = tracedRuntime(server, {
      env: {
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        AGENT_KERNEL_METRICS_NAMESPACE: 'Kernel/Test',
      },
    });
    scriptToolTurn();

    // Act
    const events = [];
    for await (const event of runtime.stream('assistant', 's-emf', 'Weather?')) events.push(event);
    await tracer.close();

    // Assess
    expect(events.at(-1)?.type).toBe('run-finished');
    const { emf, logs } = splitLines(lines);
    expect(emf).toHaveLength(1);
    const line = emf[0]!;
    const envelope = expectValidEmf(line);
    const directive = envelope._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe('Kernel/Test');
    expect(directive.Dimensions).toEqual([['agent', 'framework']]);
    expect(Math.abs(envelope._aws.Timestamp - Date.now())).toBeLessThan(60_000);
    expect(Object.fromEntries(directive.Metrics.map((m) => [m.Name, m.Unit]))).toEqual({
      RunDuration: 'Milliseconds',
      TimeToFirstEvent: 'Milliseconds',
      RunErrors: 'Count',
      RunsPaused: 'Count',
      RunsResumed: 'Count',
      ToolCalls: 'Count',
      ToolErrors: 'Count',
      ToolDuration: 'Milliseconds',
      InputTokens: 'Count',
      OutputTokens: 'Count',
    });
    expect(line).toMatchObject({
      agent: 'assistant',
      framework: 'openai',
      RunErrors: 0,
      RunsPaused: 0,
      RunsResumed: 0,
      ToolCalls: 1,
      ToolErrors: 0,
      sessionId: 's-emf',
    });
    expect(line.InputTokens as number).toBeGreaterThan(0);
    expect(line.OutputTokens as number).toBeGreaterThan(0);
    expect(line.TimeToFirstEvent as number).toBeLessThanOrEqual(line.RunDuration as number);
    // Session and run ids are properties, never dimensions.
    expect(JSON.stringify(directive.Dimensions)).not.toMatch(/session|run/i);
    const finished = logs.find((log) => log.message === 'run finished');
    expect(finished).toMatchObject({
      level: 'info',
      sessionId: 's-emf',
      agent: 'assistant',
      outcome: 'completed',
    });
    expect(finished?.traceId).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(finished?.runId).toBe(line.runId);
  });

  it('counts a paused run and its resumption, each its own trace', async () => {
    // Prepare
    const { runtime, lines, tracer } = tracedRuntime(server, {
      env: { AWS_XRAY_DAEMON_ADDRESS: daemon.address },
      confirm: true,
    });
    scriptToolTurn();

    // Act
    const paused = await runtime.run('assistant', 's-pause', 'Weather?');
    const done = await runtime.resume('s-pause', paused.runId, [
      { id: 'call_w1', status: 'approved' },
    ]);
    const docs = await daemon.waitFor(5);
    await tracer.close();

    // Assess
    expect(paused.status).toBe('paused');
    expect(done).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    const runs = byKind(docs, 'run');
    expect(runs.map((r) => r.annotations?.outcome)).toEqual(['paused', 'completed']);
    expect(new Set(runs.map((r) => r.trace_id)).size).toBe(2);
    expect(byKind(docs, 'tool')).toEqual([
      expect.objectContaining({
        parent_id: runs[1]?.id,
        annotations: expect.objectContaining({ outcome: 'ok' }),
      }),
    ]);
    const [first, second] = splitLines(lines).emf;
    expect(first).toMatchObject({ RunsPaused: 1, RunsResumed: 0, RunErrors: 0 });
    expect(first?.ToolCalls).toBeUndefined();
    expect(second).toMatchObject({ RunsPaused: 0, RunsResumed: 1, ToolCalls: 1, ToolErrors: 0 });
  });

  it('marks a failed run: fault on the segment, RunErrors 1, an error log line', async () => {
    // Prepare
    const { runtime, lines, tracer } = tracedRuntime(server, {
      env: { AWS_XRAY_DAEMON_ADDRESS: daemon.address },
    });
    server.push({ error: { status: 500, message: 'upstream broke' } });

    // Act
    await expect(runtime.run('assistant', 's-fail', 'Hi')).rejects.toMatchObject({
      code: 'model-error',
    });
    const docs = await daemon.waitFor(2);
    await tracer.close();

    // Assess
    const [run] = byKind(docs, 'run');
    expect(run).toMatchObject({
      fault: true,
      annotations: { outcome: 'error' },
      cause: { exceptions: [{ type: 'ModelError' }] },
    });
    expect(byKind(docs, 'model')[0]).toMatchObject({ fault: true });
    const { emf, logs } = splitLines(lines);
    expect(emf[0]).toMatchObject({ RunErrors: 1 });
    expect(logs.find((log) => log.level === 'error')).toMatchObject({
      message: 'run failed',
      sessionId: 's-fail',
      error: { code: 'model-error' },
    });
  });
});
