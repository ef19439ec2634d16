import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inSpan } from '../../../lib/core/tracer.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';
import { CloudWatchTracer, type SegmentDocument } from '../../../lib/tracing/index.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';

// The user's tool code instrumented with the real aws-xray-sdk-core and Powertools Tracer, on a
// Lambda-like environment: their subsegments (sent by the SDK itself over UDP) must name our tool
// span as parent. Without the bridge they would hang off Lambda's facade segment.
const LAMBDA_PARENT = '53995c3f42cd8ad8';
const TRACE = '1-5759e988-bd862e3fe1be46a994272793';
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;
type Sdk = typeof import('aws-xray-sdk-core');
let AWSXRay: Sdk;
let powertools: import('@aws-lambda-powertools/tracer').Tracer;

beforeAll(async () => {
  daemon = await startFakeDaemon();
  // Read by both SDKs when they load, as on Lambda.
  Object.assign(process.env, {
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: 'worker',
    _X_AMZN_TRACE_ID: `Root=${TRACE};Parent=${LAMBDA_PARENT};Sampled=1`,
    AWS_XRAY_DAEMON_ADDRESS: daemon.address,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  });
  AWSXRay = ((await import('aws-xray-sdk-core')) as unknown as { default: Sdk }).default;
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  powertools = new Tracer({ serviceName: 'user-code' });
});
afterAll(async () => {
  await daemon?.close();
});

function tool(name: string, body: () => Promise<void>) {
  return defineTool({
    name,
    description: name,
    input: z.object({}),
    handler: async () => {
      await body();
      return 'ok';
    },
  });
}

/** With the SDK: a subsegment on the current segment, closed after an await. */
async function sdkWork(name: string): Promise<void> {
  const sub = AWSXRay.getSegment()?.addNewSubsegment(name);
  await new Promise((resolve) => setTimeout(resolve, 5));
  sub?.close();
}

/** Powertools' documented pattern: set the subsegment current, nest one more, restore. */
async function powertoolsWork(name: string): Promise<void> {
  const parent = powertools.getSegment();
  const sub = parent?.addNewSubsegment(name);
  if (sub) powertools.setSegment(sub);
  const inner = powertools.getSegment()?.addNewSubsegment(`${name}-inner`);
  await new Promise((resolve) => setTimeout(resolve, 5));
  inner?.close();
  sub?.close();
  if (parent) powertools.setSegment(parent);
}

describe('X-Ray SDK and Powertools Tracer subsegments nest under our tool span', () => {
  it('sends the user subsegments with our tool span as parent, in our trace', async () => {
    // Prepare
    const tracer = new CloudWatchTracer({ sink: () => {} });
    const executor = new Executor({ ledger: new InMemoryToolLedger() });
    const sdkTool = tool('sdk_tool', () => sdkWork('user-sdk'));
    const ptTool = tool('powertools_tool', () => powertoolsWork('user-powertools'));
    const captured = tool('captured_tool', () =>
      AWSXRay.captureAsyncFunc('user-captured', async (sub) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        sub?.close();
      }),
    );

    // Act: three tool calls at once, then user code outside any span of ours.
    await inSpan(tracer, 'run', { runId: 'r-1' }, { kind: 'run' }, () =>
      Promise.all([
        executor.runSpec(sdkTool, {}, {}, { callId: 'c-sdk' }),
        executor.runSpec(ptTool, {}, {}, { callId: 'c-pt' }),
        executor.runSpec(captured, {}, {}, { callId: 'c-cap' }),
      ]),
    );
    await sdkWork('user-outside');
    const docs = await daemon.waitFor(9);
    await tracer.close();

    // Assess
    const byName = (name: string) => docs.find((d) => d.name === name) as SegmentDocument;
    const ours = (tool: string) => docs.find((d) => d.annotations?.tool === tool)?.id;
    expect(byName('user-sdk')).toMatchObject({ trace_id: TRACE, parent_id: ours('sdk_tool') });
    expect(byName('user-powertools')).toMatchObject({
      trace_id: TRACE,
      parent_id: ours('powertools_tool'),
    });
    expect(byName('user-powertools-inner').parent_id).toBe(byName('user-powertools').id);
    expect(byName('user-captured')).toMatchObject({
      trace_id: TRACE,
      parent_id: ours('captured_tool'),
    });
    // Our tool spans hang under our run, itself under Lambda's segment.
    const run = docs.find((d) => d.name === 'run');
    expect(run?.parent_id).toBe(LAMBDA_PARENT);
    expect(docs.find((d) => d.id === ours('sdk_tool'))?.parent_id).toBe(run?.id);
    // Outside our spans the SDK is as it was: Lambda's facade is the parent.
    expect(byName('user-outside')).toMatchObject({ trace_id: TRACE, parent_id: LAMBDA_PARENT });
  });
});
