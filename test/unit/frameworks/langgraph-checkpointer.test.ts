import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import {
  type CheckpointSnapshot,
  SessionCheckpointSaver,
} from '../../../lib/frameworks/langgraph/checkpointer.js';
import { LangGraphEventMapper } from '../../../lib/frameworks/langgraph/events.js';

const config = { configurable: { thread_id: 't', checkpoint_ns: '' } };

describe('SessionCheckpointSaver', () => {
  it('keeps the latest checkpoint with its writes through a JSON round trip', async () => {
    // Prepare
    const saver = new SessionCheckpointSaver();
    const first = { ...emptyCheckpoint(), id: '1' };
    const second = {
      ...emptyCheckpoint(),
      id: '2',
      channel_values: { messages: [new HumanMessage('hi'), new AIMessage('hello')] },
    };
    const afterFirst = await saver.put(
      config,
      first,
      { source: 'input', step: -1, parents: {} },
      {},
    );
    const afterSecond = await saver.put(
      afterFirst,
      second,
      { source: 'loop', step: 0, parents: {} },
      {},
    );
    await saver.putWrites(afterSecond, [['messages', [new AIMessage('pending')]]], 'task-1');

    // Act
    const json = JSON.parse(JSON.stringify(saver.snapshot()));
    const restored = await new SessionCheckpointSaver(json).getTuple(config);

    // Assess
    expect(json.entries).toHaveLength(1);
    expect(restored?.checkpoint.id).toBe('2');
    const messages = restored?.checkpoint.channel_values.messages as AIMessage[];
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', 'hi'],
      ['ai', 'hello'],
    ]);
    expect(restored?.pendingWrites?.[0]?.[0]).toBe('task-1');
    expect((restored?.pendingWrites?.[0]?.[2] as AIMessage[] | undefined)?.[0]?.content).toBe(
      'pending',
    );
  });

  it('keeps JSON as its text, and still loads snapshots that kept it parsed', async () => {
    // Prepare
    const saver = new SessionCheckpointSaver();
    const checkpoint = {
      ...emptyCheckpoint(),
      id: '1',
      channel_values: { messages: [new HumanMessage('hi')] },
    };
    const after = await saver.put(config, checkpoint, { source: 'loop', step: 0, parents: {} }, {});
    await saver.putWrites(after, [['messages', [new AIMessage('pending')]]], 'task-1');
    const snapshot = saver.snapshot();
    // The layout written before: the serde's JSON parsed into the snapshot.
    type Serialized = CheckpointSnapshot['entries'][number]['checkpoint'];
    const parsed = (value: Serialized): Serialized =>
      'text' in value ? { type: 'json', json: JSON.parse(value.text) } : value;
    const [entry] = snapshot.entries;
    const older: CheckpointSnapshot = {
      schemaVersion: 1,
      entries: [
        {
          ...entry!,
          checkpoint: parsed(entry!.checkpoint),
          metadata: parsed(entry!.metadata),
          writes: entry!.writes.map((w) => ({ ...w, value: parsed(w.value) })),
        },
      ],
    };

    // Act
    const fromText = await new SessionCheckpointSaver(snapshot).getTuple(config);
    const fromParsed = await new SessionCheckpointSaver(older).getTuple(config);

    // Assess
    expect(entry?.checkpoint).toEqual({ type: 'json', text: expect.any(String) });
    expect(older.entries[0]?.checkpoint).toEqual({ type: 'json', json: expect.any(Object) });
    for (const tuple of [fromText, fromParsed]) {
      const messages = tuple?.checkpoint.channel_values.messages as HumanMessage[];
      expect(messages.map((m) => [m.getType(), m.content])).toEqual([['human', 'hi']]);
      expect((tuple?.pendingWrites?.[0]?.[2] as AIMessage[] | undefined)?.[0]?.content).toBe(
        'pending',
      );
    }
  });

  it('answers an unknown thread with nothing', async () => {
    // Act
    const tuple = await new SessionCheckpointSaver().getTuple(config);

    // Assess
    expect(tuple).toBeUndefined();
  });
});

describe('LangGraphEventMapper', () => {
  it('emits a message that was not streamed whole, with its tool calls and results', () => {
    // Prepare
    const mapper = new LangGraphEventMapper('r1');
    const ai = new AIMessage({
      id: 'm1',
      content: 'Checking.',
      tool_calls: [{ id: 'c1', name: 'get_weather', args: { city: 'Oslo' } }],
    });
    const tool = new ToolMessage({
      tool_call_id: 'c1',
      name: 'get_weather',
      content: '{"error":{"kind":"tool-failed","message":"x"}}',
    });

    // Act
    const events = [
      ...mapper.map(['updates', { agent: { messages: [ai] } }]),
      ...mapper.map(['updates', { tools: { messages: [tool] } }]),
    ];

    // Assess
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      'text-delta',
      'message-end',
      'tool-call-start',
      'tool-call-args',
      'tool-call-end',
      'tool-call-result',
    ]);
    expect(events.at(-1)).toMatchObject({ toolCallId: 'c1', isError: true });
  });

  it('collects interrupts from updates', () => {
    // Prepare
    const mapper = new LangGraphEventMapper('r1');

    // Act
    const events = [...mapper.map(['updates', { __interrupt__: [{ id: 'i1', value: 'why?' }] }])];

    // Assess
    expect(events).toEqual([]);
    expect(mapper.interrupts).toEqual([{ id: 'i1', value: 'why?' }]);
  });
});
