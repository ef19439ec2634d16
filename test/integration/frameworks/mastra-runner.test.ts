import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/index.js';
import { MASTRA_INTEGRATION, mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';
import {
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

/** What the Mastra runner adds beyond the runner contract, against the real SDK over HTTP. */
const server = useScriptedModelServer();

const model = () =>
  createOpenAI({ baseURL: server.url, apiKey: 'test-key' }).chat('scripted-model');

function runtimeWith(tools: Record<string, unknown>, extra: { tracer?: CloudWatchTracer } = {}) {
  const native = new Agent({
    id: 'assistant',
    name: 'Assistant',
    description: 'Helps.',
    instructions: 'Help.',
    model: model(),
    tools: tools as never,
  });
  const sessions = new InMemorySessionStore();
  const runtime = new Runtime({
    sessions,
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [mastraAgent(native)],
    ...extra,
  });
  return { runtime, sessions, native };
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string().min(1) }),
  handler: (args) => ({ city: args.city, forecast: 'sunny' }),
});

describe('Mastra runner', () => {
  it('opens a model span per model call under the run, with token usage', async () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: { send: (doc) => docs.push(...flattenSegment(doc)) },
      sink: () => undefined,
    });
    const tool = MASTRA_INTEGRATION.exportTool(weather, { executor: new Executor() });
    const { runtime } = runtimeWith({ get_weather: tool }, { tracer });
    server.push(
      {
        toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 11, outputTokens: 3 },
      },
      { text: 'Sunny in Paris.', usage: { inputTokens: 23, outputTokens: 5 } },
    );

    // Act
    const reply = await runtime.run('assistant', 's-spans', 'Weather in Paris?');
    await tracer.close();

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    const kind = (k: string) => docs.filter((d) => d.annotations?.kind === k);
    const [run] = kind('run');
    const models = kind('model').sort((a, b) => a.start_time - b.start_time);
    expect(run?.annotations).toMatchObject({ framework: 'mastra', outcome: 'completed' });
    expect(models).toHaveLength(2);
    for (const span of models) {
      expect(span).toMatchObject({ parent_id: run?.id, annotations: { model: 'scripted-model' } });
    }
    const usage = (d: SegmentDocument | undefined) =>
      (d?.metadata as { agent_kernel?: Record<string, unknown> })?.agent_kernel;
    expect(usage(models[0])).toMatchObject({ inputTokens: 11, outputTokens: 3 });
    expect(usage(models[1])).toMatchObject({ inputTokens: 23, outputTokens: 5 });
  });

  it('ends an aborted run with run-error and its model span ended', async () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: { send: (doc) => docs.push(...flattenSegment(doc)) },
      sink: () => undefined,
    });
    const { runtime, sessions } = runtimeWith({}, { tracer });
    server.push({ text: 'too late', delayMs: 2_000 });
    const controller = new AbortController();
    const started = Date.now();

    // Act: abort while the model has not answered yet.
    const types: string[] = [];
    for await (const event of runtime.stream('assistant', 's-abort', 'Hi', {
      signal: controller.signal,
    })) {
      types.push(event.type);
      if (event.type === 'run-started') setTimeout(() => controller.abort(), 100);
    }
    await tracer.close();

    // Assess
    expect(types.at(-1)).toBe('run-error');
    expect(Date.now() - started).toBeLessThan(1_900);
    const models = docs.filter((d) => d.annotations?.kind === 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ fault: true });
    expect(models[0]?.end_time).toBeDefined();
    expect(await sessions.load('s-abort')).toBeUndefined();
  });

  it('hands the framework context to native tools as a RequestContext and keeps what they set', async () => {
    // Prepare
    const seen: unknown[] = [];
    const counter = createTool({
      id: 'count',
      description: 'Counts visits',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const before = ctx.requestContext?.get('visits' as never) as number | undefined;
        seen.push(before);
        ctx.requestContext?.set('visits' as never, ((before ?? 0) + 1) as never);
        return 'counted';
      },
    });
    const { runtime, sessions } = runtimeWith({ count: counter });
    const visit = (id: string) => ({ toolCalls: [{ id, name: 'count', arguments: {} }] });
    server.push(visit('call_c1'), { text: 'One.' }, visit('call_c2'), { text: 'Two.' });

    // Act
    await runtime.run('assistant', 's-ctx', 'Count');
    await runtime.run('assistant', 's-ctx', 'Count again');

    // Assess
    expect(seen).toEqual([undefined, 1]);
    const stored = await sessions.load('s-ctx');
    expect(stored?.data.context).toMatchObject({ visits: 2 });
    expect(JSON.stringify(stored?.data.context)).not.toContain('__mastra');
  });

  it('decides two calls held in one step with one resume: one approved, one denied', async () => {
    // Prepare
    const paid: unknown[] = [];
    const pay = createTool({
      id: 'pay',
      description: 'Pay',
      inputSchema: z.object({ to: z.string() }),
      requireApproval: true,
      execute: async ({ to }) => {
        paid.push(to);
        return `paid ${to}`;
      },
    });
    const { runtime } = runtimeWith({ pay });
    server.push(
      {
        toolCalls: [
          { id: 'call_a', name: 'pay', arguments: { to: 'ann' } },
          { id: 'call_b', name: 'pay', arguments: { to: 'ben' } },
        ],
      },
      { text: 'Paid Ann only.' },
    );

    // Act
    const paused = await runtime.run('assistant', 's-two', 'Pay Ann and Ben');
    const ids =
      paused.status === 'paused' ? paused.interruptions.map((i) => i.id) : ([] as string[]);
    const decisions = ids.map((id) => ({
      id,
      status: id === 'call_a' ? ('approved' as const) : ('denied' as const),
    }));
    let done = await runtime.resume('s-two', paused.runId, decisions);
    // Mastra may hold the second call only once the first is decided: decide it too.
    while (done.status === 'paused') {
      const next = done.interruptions.map((i) => ({
        id: i.id,
        status: i.id === 'call_a' ? ('approved' as const) : ('denied' as const),
      }));
      done = await runtime.resume('s-two', done.runId, next);
    }

    // Assess
    expect(paused.status).toBe('paused');
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Ann only.' });
    expect(paid).toEqual(['ann']);
    expect(server.requests).toHaveLength(2);
  });

  it('pauses for input when a tool suspends itself and resumes it with the decision', async () => {
    // Prepare
    const shipped: unknown[] = [];
    const ship = createTool({
      id: 'ship',
      description: 'Ships an order once the address is confirmed',
      inputSchema: z.object({ order: z.string() }),
      suspendSchema: z.object({ question: z.string() }),
      resumeSchema: z.object({
        status: z.enum(['approved', 'denied']),
        arguments: z.object({ address: z.string() }).optional(),
      }),
      execute: async ({ order }, ctx) => {
        const answer = ctx.agent?.resumeData;
        if (!answer) return ctx.agent?.suspend?.({ question: `Where to ship ${order}?` });
        if (answer.status !== 'approved') return 'not shipped';
        shipped.push([order, answer.arguments?.address]);
        return `shipped ${order} to ${answer.arguments?.address}`;
      },
    });
    const { runtime } = runtimeWith({ ship });
    server.push(
      { toolCalls: [{ id: 'call_s1', name: 'ship', arguments: { order: 'o-7' } }] },
      { text: 'Shipped.' },
    );

    // Act
    const paused = await runtime.run('assistant', 's-suspend', 'Ship o-7');
    const done = await runtime.resume('s-suspend', paused.runId, [
      { id: 'call_s1', status: 'approved', arguments: { address: '1 Main St' } },
    ]);

    // Assess
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [
        {
          id: 'call_s1',
          kind: 'input',
          toolName: 'ship',
          message: '{"question":"Where to ship o-7?"}',
        },
      ],
    });
    expect(done).toMatchObject({ status: 'completed', text: 'Shipped.' });
    expect(shipped).toEqual([['o-7', '1 Main St']]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('shipped o-7 to 1 Main St');
  });

  it('lists the agent’s tools on its card and names it by its id', async () => {
    // Prepare
    const tool = MASTRA_INTEGRATION.exportTool(weather, { executor: new Executor() });
    const { runtime } = runtimeWith({ get_weather: tool });
    // Mastra lists tools asynchronously: the listing started at wrapping has settled.
    await new Promise((resolve) => setImmediate(resolve));

    // Act
    const card = runtime.agent('assistant').card();

    // Assess
    expect(card).toMatchObject({
      name: 'assistant',
      description: 'Helps.',
      capabilities: { streaming: true, humanInTheLoop: true },
      skills: [{ id: 'get_weather', description: 'Current weather for a city' }],
    });
  });

  it('empties its in-memory Mastra store of a run once the turn ends, paused or not', async () => {
    // Prepare
    const pay = createTool({
      id: 'pay',
      description: 'Pay',
      inputSchema: z.object({ to: z.string() }),
      requireApproval: true,
      execute: async ({ to }) => `paid ${to}`,
    });
    const { runtime, native } = runtimeWith({ pay });
    server.push(
      { text: 'Hi.' },
      { toolCalls: [{ id: 'call_p', name: 'pay', arguments: { to: 'ann' } }] },
      { text: 'Paid.' },
    );

    // Act
    await runtime.run('assistant', 's-clean', 'Hi');
    const paused = await runtime.run('assistant', 's-clean', 'Pay Ann');
    const afterPause = await workflowRuns(native);
    await runtime.resume('s-clean', paused.runId, [{ id: 'call_p', status: 'approved' }]);

    // Assess
    expect(paused.status).toBe('paused');
    expect(afterPause).toBe(0);
    expect(await workflowRuns(native)).toBe(0);
  });
});

async function workflowRuns(native: Agent): Promise<number> {
  const store = await native.getMastraInstance()?.getStorage()?.getStore('workflows');
  const runs = await store?.listWorkflowRuns({});
  return runs?.total ?? -1;
}
