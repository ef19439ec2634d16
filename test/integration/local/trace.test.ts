import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import type { SegmentDocument } from '../../../lib/tracing/index.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';
import { connect, untilTerminal } from './ws-client.js';

// One WebSocket `run` followed through ws-message → run queue → worker → events queue → fan-out,
// with the functions' own tracers sending to a UDP listener standing in for the X-Ray daemon.
let stack: LocalStack;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;
const lines: string[] = [];
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  daemon = await startFakeDaemon();
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  // Read by the functions at cold start (lib/aws/middleware/observability.ts observability()).
  Object.assign(process.env, {
    POWERTOOLS_LOG_LEVEL: 'INFO',
    AGENT_KERNEL_TRACING: 'cloudwatch',
    AWS_XRAY_DAEMON_ADDRESS: daemon.address,
  });
  // The functions log to stdout as on Lambda: keep the JSON lines to check their ids.
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.startsWith('{')) lines.push(...text.trim().split('\n'));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  stack = await startLocalStack();
}, 60_000);
afterAll(async () => {
  process.stdout.write = write;
  await stack?.stop();
  await daemon?.close();
});

async function until<T>(probe: () => T | undefined, budgetMs = 10_000): Promise<T> {
  const end = Date.now() + budgetMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('one trace across ws-message, worker and fan-out (local stack)', () => {
  it('joins the three functions in one trace, linked through the SQS trace header', async () => {
    // Prepare
    const ws = await connect(stack.wsUrl, stack.token);
    const done = untilTerminal(ws, ['run-finished', 'run-error']);

    // Act
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'trace-1',
        agent: 'demo',
        sessionId: 'trace-session',
        input: 'weather in Paris?',
      }),
    );
    const messages = await done;
    ws.close();
    const runId = messages[0]?.runId as string;
    const byId = (id: string | undefined) => daemon.documents.find((d) => d.id === id);
    const named = (name: string) =>
      daemon.documents.filter((d) => d.annotations?.span === name || d.name === name);
    // The fan-out of the final batch may still be sending its segment.
    const fanouts = await until(() => {
      const found = named('fanout');
      return found.length > 0 &&
        found.every((f) => f.annotations?.runId === runId) &&
        named('job').length > 0
        ? found
        : undefined;
    });

    // Assess: the run streamed and finished…
    expect(messages.at(-1)?.events.at(-1)).toMatchObject({ type: 'run-finished' });
    const message = named('ws-message').find((d) => d.annotations?.runId === runId);
    const job = named('job').find((d) => d.annotations?.runId === runId);
    expect(message).toBeDefined();
    expect(job).toBeDefined();
    // …and every span of the three functions carries the trace the WebSocket message started.
    const traceId = message?.trace_id;
    expect(job?.trace_id).toBe(traceId);
    for (const fanout of fanouts) expect(fanout.trace_id).toBe(traceId);
    const run = daemon.documents.find((d) => d.annotations?.kind === 'run');
    expect(run).toMatchObject({ trace_id: traceId, parent_id: job?.id });
    expect(run?.annotations).toMatchObject({ sessionId: 'trace-session', runId, agent: 'demo' });
    expect(daemon.documents.some((d) => d.annotations?.kind === 'model')).toBe(true);
    expect(daemon.documents.some((d) => d.annotations?.kind === 'tool')).toBe(true);

    // The links: the job hangs under the ws-message span that queued it, each fan-out under the
    // job whose SendMessage carried its header (the SendMessage calls are spans of their own).
    expect(job?.parent_id).toBe(message?.id);
    // The worker's job is its own node (a segment named after the worker), not a subsegment.
    expect(job).toMatchObject({ name: 'worker' });
    expect(job?.type).toBeUndefined();
    const sends = daemon.documents.filter((d) => d.parent_id === message?.id && d.name === 'SQS');
    expect(sends.map((d) => d.aws?.operation)).toEqual(['SendMessage']);
    for (const fanout of fanouts) {
      expect(fanout.parent_id).toBe(job?.id);
      const delivery = daemon.documents.find(
        (d) => d.parent_id === fanout.id && d.annotations?.kind === 'delivery',
      );
      expect(delivery?.trace_id).toBe(traceId);
      expect(ancestors(delivery as SegmentDocument, byId)).toEqual([
        fanout.id,
        job?.id,
        message?.id,
      ]);
    }

    // Log lines of all three carry the trace id and the run's ids (one logger per function).
    const json = lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    const logged = json.filter((l) => l.runId === runId && typeof l.message === 'string');
    const services = new Set(logged.map((l) => l.service));
    expect(services).toEqual(new Set(['ws-message', 'worker']));
    for (const line of logged) expect(line).toMatchObject({ traceId, sessionId: 'trace-session' });
    // EMF: the worker's run metrics name the trace as a property, never as a dimension.
    const emf = json.find((l) => l._aws && l.runId === runId && 'RunDuration' in l);
    expect(emf).toMatchObject({ traceId, agent: 'demo' });
  }, 60_000);
});

function ancestors(
  doc: SegmentDocument,
  byId: (id: string | undefined) => SegmentDocument | undefined,
): string[] {
  const out: string[] = [];
  let current: SegmentDocument | undefined = doc;
  while (current?.parent_id) {
    out.push(current.parent_id);
    current = byId(current.parent_id);
  }
  return out;
}
