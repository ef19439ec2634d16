import { readFileSync } from 'node:fs';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { createTracer, flushTracer, type MultiTracer } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { nativeRunners } from './native-runners.js';
import { type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

/**
 * With payloads on, every `chat` span's `gen_ai.input.messages` / `gen_ai.output.messages` is a
 * JSON string valid against the GenAI conventions' message schemas (test/fixtures/genai, written
 * out from open-telemetry/semantic-conventions docs/gen-ai/gen-ai-{input,output}-messages.json,
 * v1.37.0 onwards), for each of the six runners against the real SDKs: roles among the
 * conventions' four, parts of the conventions' own types (not only the generic part), the
 * tool call, its response and the finish reasons where they belong.
 */

const server = useScriptedModelServer();
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/genai/${name}`, import.meta.url), 'utf8'));

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(fixture('parts.schema.json'));
const validateInput = ajv.compile(fixture('input-messages.schema.json'));
const validateOutput = ajv.compile(fixture('output-messages.schema.json'));
const PARTS = 'https://agent-kernel.local/genai/parts.schema.json#/$defs/';
const knownParts = ['TextPart', 'ToolCallRequestPart', 'ToolCallResponsePart', 'ReasoningPart'].map(
  (name) => ajv.getSchema(`${PARTS}${name}`) as ValidateFunction,
);
const ROLES = ['system', 'user', 'assistant', 'tool'];

interface Message {
  role: string;
  parts: { type: string; [key: string]: unknown }[];
  finish_reason?: string;
}

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

/** Parses and validates one messages attribute; returns its messages. */
function messages(span: ReceivedSpan, key: string, validate: ValidateFunction): Message[] {
  const raw = span.attributes[key];
  expect(typeof raw, `${key} of ${span.name}`).toBe('string');
  const value = JSON.parse(String(raw)) as Message[];
  const valid = validate(value);
  expect(validate.errors ?? [], `${key}: ${JSON.stringify(validate.errors)}`).toEqual([]);
  expect(valid).toBe(true);
  for (const message of value) {
    expect(ROLES).toContain(message.role);
    for (const part of message.parts) {
      expect(
        knownParts.some((check) => check(part)),
        JSON.stringify(part),
      ).toBe(true);
    }
  }
  return value;
}

const partsOf = (list: Message[], type: string): Record<string, unknown>[] =>
  list.flatMap((m) => m.parts.filter((p) => p.type === type).map((p) => ({ ...p, role: m.role })));

describe.each(nativeRunners)('GenAI messages of the $name runner', ({ agent }) => {
  it('validate against the conventions’ schemas, tool call and response included', async () => {
    // Arrange
    const tracer = createTracer({
      env: {
        AGENT_KERNEL_TRACING: 'otlp',
        AGENT_KERNEL_TRACE_PAYLOADS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [await agent(server.url, async ({ city }) => `${city}, FR`)],
      tracer,
    });
    server.push(
      { toolCalls: [{ id: 'call_l1', name: 'lookup', arguments: { city: 'Paris' } }] },
      { text: 'Paris is in France.' },
    );

    // Act
    const reply = await runtime.run('assistant', 's-messages', 'Look Paris up');
    await flushTracer(tracer);
    await (tracer as MultiTracer).close();

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Paris is in France.' });
    const chats = receiver
      .spans()
      .filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')
      .sort((a, b) =>
        BigInt(a.startTimeUnixNano ?? 0) < BigInt(b.startTimeUnixNano ?? 0) ? -1 : 1,
      );
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      // The conventions' required and (the model being known) conditionally required attributes.
      expect(chat.attributes[semconv.ATTR_GEN_AI_OPERATION_NAME]).toBe('chat');
      expect(chat.attributes[semconv.ATTR_GEN_AI_PROVIDER_NAME]).toMatch(/^[a-z][a-z0-9_.]*$/);
      expect(chat.attributes[semconv.ATTR_GEN_AI_REQUEST_MODEL]).toEqual(expect.any(String));
      expect(chat.name).toBe(`chat ${chat.attributes[semconv.ATTR_GEN_AI_REQUEST_MODEL]}`);
    }
    const [first, second] = chats as [ReceivedSpan, ReceivedSpan];
    const firstIn = messages(first, 'gen_ai.input.messages', validateInput);
    const firstOut = messages(first, 'gen_ai.output.messages', validateOutput);
    const secondIn = messages(second, 'gen_ai.input.messages', validateInput);
    const secondOut = messages(second, 'gen_ai.output.messages', validateOutput);
    expect(partsOf(firstIn, 'text')).toContainEqual(
      expect.objectContaining({ role: 'user', content: expect.stringContaining('Look Paris up') }),
    );
    expect(partsOf(firstOut, 'tool_call')).toEqual([
      expect.objectContaining({ role: 'assistant', name: 'lookup' }),
    ]);
    expect(firstOut.at(-1)?.finish_reason).toBe('tool_call');
    const responses = partsOf(secondIn, 'tool_call_response');
    expect(responses).toHaveLength(1);
    expect(responses[0]?.role).toBe('tool');
    expect(JSON.stringify(responses[0]?.response)).toContain('Paris, FR');
    expect(partsOf(secondIn, 'tool_call')).toHaveLength(1);
    expect(partsOf(secondOut, 'text')).toContainEqual(
      expect.objectContaining({ role: 'assistant', content: 'Paris is in France.' }),
    );
    expect(secondOut.at(-1)?.finish_reason).toBe('stop');
  });
});
