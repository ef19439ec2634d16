import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { StreamEvent } from '../../../lib/core/events.js';
import type { RunnerResult } from '../../../lib/core/runner.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

/** A drained turn (`Runtime.run`) goes through `agent.generate`, with the stream's events. */
const server = useScriptedModelServer();

const pay = createTool({
  id: 'pay',
  description: 'Pay',
  inputSchema: z.object({ to: z.string() }),
  requireApproval: true,
  execute: async ({ to }) => `paid ${to}`,
});
const weather = createTool({
  id: 'get_weather',
  description: 'Weather',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `${city}: sunny`,
});

const makeAgent = () =>
  mastraAgent(
    new Agent({
      id: 'assistant',
      name: 'Assistant',
      instructions: 'Help.',
      model: createOpenAI({ baseURL: server.url, apiKey: 'test-key' }).chat('scripted-model'),
      tools: { pay, get_weather: weather },
    }),
  );

/** One turn straight through the runner: its events (text deltas joined) and result. */
async function turn(drained: boolean, text: string) {
  const events: StreamEvent[] = [];
  const agent = makeAgent();
  const stream = agent.runner.stream({
    runId: 'r1',
    sessionId: 's1',
    agent,
    requests: [{ type: 'text', text }],
    state: undefined,
    context: {},
    options: {},
    signal: new AbortController().signal,
    ...(drained ? { drained } : {}),
  });
  let step = await stream.next();
  while (!step.done) {
    events.push(step.value);
    step = await stream.next();
  }
  return { events: joined(events), result: step.value as RunnerResult };
}

/**
 * The events with each run of deltas joined (a stream carries the provider's chunks, generate one
 * whole part) and message ids dropped (while streaming they are the provider's part ids).
 */
function joined(events: readonly StreamEvent[]): unknown[] {
  const out: Record<string, unknown>[] = [];
  for (const event of events) {
    const { messageId: _id, ...rest } = event as Record<string, unknown>;
    const last = out.at(-1);
    if (last && 'delta' in rest && last.type === rest.type && last.toolCallId === rest.toolCallId) {
      last.delta = `${last.delta}${rest.delta}`;
    } else out.push({ ...rest });
  }
  return out;
}

/** The events but those of tool calls other than `id`. */
function oneCall(events: readonly unknown[], id: string): unknown[] {
  return events.filter((e) => {
    const call = (e as { toolCallId?: string }).toolCallId;
    return call === undefined || call === id;
  });
}

/** The same turn streamed and drained: its model requests, events and result. */
async function bothPaths(script: () => void, text: string) {
  script();
  const streamed = await turn(false, text);
  script();
  const drained = await turn(true, text);
  return { streamed, drained, streams: server.requests.map((r) => r.stream) };
}

describe('Mastra drained turn', () => {
  it('runs a tool turn through generate with the stream’s events and reply', async () => {
    // Prepare
    const script = () =>
      server.push(
        { toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { text: 'Sunny in Oslo.' },
      );

    // Act
    const { streamed, drained, streams } = await bothPaths(script, 'Weather?');

    // Assess
    expect(streams).toEqual([true, true, false, false]);
    expect(drained.result).toMatchObject({ status: 'completed', text: 'Sunny in Oslo.' });
    expect(drained.events).toEqual(streamed.events);
    expect(drained.events).toContainEqual({
      type: 'tool-call-result',
      runId: 'r1',
      toolCallId: 'call_w',
      toolName: 'get_weather',
      result: 'Oslo: sunny',
    });
    expect(drained.events).toContainEqual({
      type: 'text-delta',
      runId: 'r1',
      delta: 'Sunny in Oslo.',
    });
    const { state: _drainedState, ...drainedRest } = drained.result as { state?: unknown };
    const { state: _streamedState, ...streamedRest } = streamed.result as { state?: unknown };
    expect(drainedRest).toEqual(streamedRest);
  });

  it('pauses a drained turn with two calls held at once as the stream does', async () => {
    // Prepare
    const script = () =>
      server.push({
        toolCalls: [
          { id: 'call_a', name: 'pay', arguments: { to: 'ann' } },
          { id: 'call_b', name: 'pay', arguments: { to: 'ben' } },
        ],
      });

    // Act
    const { streamed, drained, streams } = await bothPaths(script, 'Pay Ann and Ben');

    // Assess
    expect(streams).toEqual([true, false]);
    expect(drained.result).toMatchObject({
      status: 'paused',
      interruptions: [{ id: 'call_a', kind: 'tool-approval', toolName: 'pay' }],
    });
    // A stream may interleave the two calls' input parts; each call's own events must match.
    for (const id of ['call_a', 'call_b']) {
      expect(oneCall(drained.events, id)).toEqual(oneCall(streamed.events, id));
    }
    expect(drained.events).toHaveLength(streamed.events.length);
    const interruptions = (r: RunnerResult) => (r.status === 'paused' ? r.interruptions : []);
    expect(interruptions(drained.result)).toEqual(interruptions(streamed.result));
  });
});
