import { EventStreamCodec } from '@smithy/eventstream-codec';
import { describe, expect, it } from 'vitest';
import {
  buildConverseEvents,
  buildConverseResponse,
  converseRoute,
} from '../../../../lib/testing/scripted-model-server/converse-api.js';
import type { ResolvedTurn } from '../../../../lib/testing/scripted-model-server/turn.js';
import { startScriptedModelServer } from '../../../../lib/testing/scripted-model-server.js';

const turn: ResolvedTurn = {
  text: 'Paying.',
  reasoning: undefined,
  toolCalls: [{ callId: 'call_1', name: 'pay', arguments: '{"to":"bob"}' }],
  usage: { inputTokens: 10, outputTokens: 4, reasoningTokens: 0 },
};

describe('the Converse stand-in', () => {
  it('routes both Converse paths, the model id decoded', () => {
    // Assess
    expect(converseRoute('/model/us.amazon.nova%3A0/converse')).toEqual({
      modelId: 'us.amazon.nova:0',
      stream: false,
    });
    expect(converseRoute('/model/m/converse-stream')).toEqual({ modelId: 'm', stream: true });
    expect(converseRoute('/v1/responses')).toBeUndefined();
  });

  it('orders stream events as Bedrock does: text block, tool block with start, stop, metadata', () => {
    // Act
    const events = buildConverseEvents(turn, 4);

    // Assess
    expect(events.map(([type]) => type)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(events[4]?.[1]).toEqual({
      contentBlockIndex: 1,
      start: { toolUse: { toolUseId: 'call_1', name: 'pay' } },
    });
    expect(events.at(-2)?.[1]).toEqual({ stopReason: 'tool_use' });
    expect(events.at(-1)?.[1]).toMatchObject({ usage: { totalTokens: 14 } });
  });

  it('answers a whole response with the tool input as an object', () => {
    // Act
    const response = buildConverseResponse(turn);

    // Assess
    expect(response).toMatchObject({
      output: {
        message: {
          content: [
            { text: 'Paying.' },
            { toolUse: { toolUseId: 'call_1', input: { to: 'bob' } } },
          ],
        },
      },
      stopReason: 'tool_use',
    });
  });

  it('streams frames the AWS codec decodes (CRCs checked) to typed JSON events', async () => {
    // Prepare
    const codec = new EventStreamCodec(
      (b) => Buffer.from(b).toString('utf8'),
      (s) => new Uint8Array(Buffer.from(s, 'utf8')),
    );
    const server = await startScriptedModelServer({ script: [{ text: 'Hello there.' }] });

    // Act
    let body: Uint8Array;
    let type: string | null;
    try {
      const res = await fetch(`${server.url.replace('/v1', '')}/model/m/converse-stream`, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }),
      });
      type = res.headers.get('content-type');
      body = new Uint8Array(await res.arrayBuffer());
    } finally {
      await server.close();
    }
    const events: [unknown, unknown][] = [];
    for (let at = 0; at < body.length; ) {
      const length = new DataView(body.buffer, body.byteOffset + at).getUint32(0);
      const message = codec.decode(body.subarray(at, at + length));
      events.push([
        message.headers[':event-type']?.value,
        JSON.parse(new TextDecoder().decode(message.body)),
      ]);
      at += length;
    }

    // Assess
    expect(type).toBe('application/vnd.amazon.eventstream');
    expect(events.map(([t]) => t)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(events[1]?.[1]).toEqual({ contentBlockIndex: 0, delta: { text: 'Hello th' } });
  });
});
