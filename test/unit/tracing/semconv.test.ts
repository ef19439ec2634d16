import { readFileSync } from 'node:fs';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { withActiveSpan } from '../../../lib/core/index.js';
import { OtelTracer } from '../../../lib/tracing/index.js';
import {
  kindAttributes,
  payloadKeys,
  providerName,
  RENAMED,
  SEMCONV_VERSION,
  toOtelAttributes,
} from '../../../lib/tracing/otel-attributes.js';

const KNOWN = new Set(
  Object.entries(semconv)
    .filter(([name]) => name.startsWith('ATTR_'))
    .map(([, value]) => value as string),
);
const PROVIDERS = new Set(
  Object.entries(semconv)
    .filter(([name]) => name.startsWith('GEN_AI_PROVIDER_NAME_VALUE_'))
    .map(([, value]) => value as string),
);
const ours = (name: string) => name.startsWith('agent_kernel.');

describe('our attribute names against @opentelemetry/semantic-conventions', () => {
  it('pins the conventions version in one place, equal to the installed package', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.devDependencies['@opentelemetry/semantic-conventions']).toBe(SEMCONV_VERSION);
  });

  it('uses only names the conventions define, besides our agent_kernel.* ones', () => {
    const names = [
      ...Object.values(RENAMED).flat(),
      ...Object.keys(
        kindAttributes('tool', { tool: 't' }, { principal: 'hash', traceloop: false }),
      ),
      ...(['model', 'tool'] as const).flatMap((kind) =>
        (['input', 'output'] as const).flatMap((n) => payloadKeys(kind, n, false)),
      ),
      'enduser.id',
      'error.type',
    ].filter((name) => !ours(name) && name !== 'input.value' && name !== 'output.value');
    expect(names.filter((name) => !KNOWN.has(name))).toEqual([]);
  });

  it('writes our own attribute names in snake_case', () => {
    // Act
    const out = toOtelAttributes(
      { awsOperation: 'PutItem', attempts: 2, runId: 'r1', errorCode: 'x' },
      { principal: 'hash', traceloop: false },
    );

    // Assess
    expect(Object.keys(out).sort()).toEqual([
      'agent_kernel.attempts',
      'agent_kernel.aws_operation',
      'agent_kernel.error_code',
      'agent_kernel.run_id',
    ]);
    expect(Object.keys(out).every((name) => /^[a-z0-9_.]+$/.test(name))).toBe(true);
  });

  it('maps framework provider ids to the well-known provider names', () => {
    for (const raw of [
      'openai.responses',
      'openai.chat',
      'amazon-bedrock',
      'google.generative-ai',
    ]) {
      expect(PROVIDERS.has(providerName(raw)), raw).toBe(true);
    }
    expect(providerName('my-own-gateway')).toBe('my-own-gateway');
  });

  it('puts the provider and model on chat and on invoke_agent, the stream flag on chat', async () => {
    // Prepare
    const exporter = new InMemorySpanExporter();
    const tracer = new OtelTracer({ env: {}, config: { otel: ['otlp'] }, exporters: [exporter] });

    // Act
    const run = tracer.startSpan('run', { agent: 'assistant', requestId: 'r-1' }, { kind: 'run' });
    withActiveSpan(tracer, run, () => {
      const attrs = { model: 'gpt-x', provider: 'openai.responses', streamed: true };
      tracer.startSpan('model', attrs, { kind: 'model' }).end();
    });
    run.end();
    await tracer.flush();
    const spans = exporter.getFinishedSpans();
    await tracer.close();

    // Assess
    const chat = spans.find((s) => s.name === 'chat gpt-x');
    const agent = spans.find((s) => s.name === 'invoke_agent assistant');
    expect(chat?.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: semconv.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      [semconv.ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-x',
      [semconv.ATTR_GEN_AI_REQUEST_STREAM]: true,
    });
    expect(agent?.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent',
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: 'openai',
      [semconv.ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-x',
      [semconv.ATTR_FAAS_INVOCATION_ID]: 'r-1',
    });
  });
});
