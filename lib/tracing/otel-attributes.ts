import { createHash } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import type { SpanAttributes, SpanKind } from '../core/tracer.js';

/** How a `principal` attribute is exported: a stable hash (default), nothing, or as is. */
export type PrincipalPolicy = 'hash' | 'omit' | 'plain';

export interface AttributeOptions {
  readonly principal: PrincipalPolicy;
  /** Add OpenLLMetry's Traceloop attributes next to the GenAI ones. */
  readonly traceloop: boolean;
}

/**
 * The version of the OTel semantic conventions every name below follows: the
 * `@opentelemetry/semantic-conventions` release pinned in package.json (a test checks each name
 * against that package's constants).
 */
export const SEMCONV_VERSION = '1.45.0';

/** Our attribute names → the OTel semantic conventions (GenAI, FaaS, session). */
export const RENAMED: Record<string, readonly string[]> = {
  agent: ['gen_ai.agent.name'],
  sessionId: ['gen_ai.conversation.id', 'session.id'],
  runId: ['agent_kernel.run_id'],
  requestId: ['faas.invocation.id'],
  framework: ['agent_kernel.framework'],
  model: ['gen_ai.request.model'],
  provider: ['gen_ai.provider.name'],
  streamed: ['gen_ai.request.stream'],
  responseId: ['gen_ai.response.id'],
  responseModel: ['gen_ai.response.model'],
  serverAddress: ['server.address'],
  serverPort: ['server.port'],
  serverUrl: ['url.full'],
  inputTokens: ['gen_ai.usage.input_tokens'],
  outputTokens: ['gen_ai.usage.output_tokens'],
  tool: ['gen_ai.tool.name'],
  callId: ['gen_ai.tool.call.id'],
  outcome: ['agent_kernel.outcome'],
};

/** OpenLLMetry's older names that Traceloop's views still read. */
const TRACELOOP: Record<string, readonly string[]> = {
  sessionId: ['traceloop.association.properties.session_id'],
  inputTokens: ['gen_ai.usage.prompt_tokens'],
  outputTokens: ['gen_ai.usage.completion_tokens'],
  provider: ['gen_ai.system'],
};

/** The Traceloop-only attribute names above: other presets' exporters leave them out. */
export const TRACELOOP_KEYS: ReadonlySet<string> = new Set(Object.values(TRACELOOP).flat());

const OPERATION: Partial<Record<SpanKind, string>> = {
  run: 'invoke_agent',
  model: 'chat',
  tool: 'execute_tool',
};

const TRACELOOP_KIND: Partial<Record<SpanKind, string>> = {
  run: 'workflow',
  tool: 'tool',
  hook: 'task',
};

/**
 * The OTel attributes of our span attributes, written into `out`; undefined values are dropped,
 * string values pass through `redact`.
 */
export function toOtelAttributes(
  attributes: SpanAttributes,
  options: AttributeOptions,
  out: Attributes = {},
  redact?: (value: string) => string,
): Attributes {
  for (const name in attributes) {
    const value = attributes[name];
    if (value === undefined) continue;
    if (name === 'principal') {
      const id = principalValue(String(value), options.principal);
      if (id !== undefined) out['enduser.id'] = redact ? redact(id) : id;
      continue;
    }
    const renamed = name === 'provider' ? providerName(String(value)) : value;
    const exported = redact && typeof renamed === 'string' ? redact(renamed) : renamed;
    for (const key of RENAMED[name] ?? [ownName(name)]) out[key] = exported;
    if (options.traceloop) for (const key of TRACELOOP[name] ?? []) out[key] = exported;
  }
  return out;
}

/** Names recur on every span: each is converted once (bounded). */
const ownNames = new Map<string, string>();

/** Our own attributes, snake_case as the conventions write names: `awsOperation` → `agent_kernel.aws_operation`. */
function ownName(name: string): string {
  let own = ownNames.get(name);
  if (own === undefined) {
    own = `agent_kernel.${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
    if (ownNames.size >= 1_000) ownNames.clear();
    ownNames.set(name, own);
  }
  return own;
}

/** Attributes a span of `kind` carries from its start: the GenAI operation, Traceloop's kind. */
export function kindAttributes(
  kind: SpanKind,
  attributes: SpanAttributes,
  options: AttributeOptions,
): Attributes {
  const out: Attributes = { 'agent_kernel.kind': kind };
  const operation = OPERATION[kind];
  if (operation) out['gen_ai.operation.name'] = operation;
  if (kind === 'tool') out['gen_ai.tool.type'] = 'function';
  if (!options.traceloop) return out;
  const tlKind = TRACELOOP_KIND[kind];
  if (tlKind) out['traceloop.span.kind'] = tlKind;
  const entity = kind === 'run' ? attributes.agent : kind === 'tool' ? attributes.tool : undefined;
  if (entity !== undefined) out['traceloop.entity.name'] = String(entity);
  if (attributes.agent !== undefined) out['traceloop.workflow.name'] = String(attributes.agent);
  if (kind === 'model') out['llm.request.type'] = 'chat';
  return out;
}

/** `invoke_agent assistant`, `chat gpt-5`, `execute_tool get_weather` (GenAI span names). */
export function spanName(name: string, kind: SpanKind, attributes: SpanAttributes): string {
  const operation = OPERATION[kind];
  const subject =
    kind === 'run' ? attributes.agent : kind === 'model' ? attributes.model : attributes.tool;
  return operation && subject !== undefined ? `${operation} ${subject}` : name;
}

/** Payload attribute names per kind: GenAI's, the generic `input.value`, Traceloop's. */
export function payloadKeys(
  kind: SpanKind,
  name: 'input' | 'output',
  traceloop: boolean,
): string[] {
  const keys = [`${name}.value`];
  if (kind === 'model') keys.push(`gen_ai.${name}.messages`);
  if (kind === 'tool')
    keys.push(name === 'input' ? 'gen_ai.tool.call.arguments' : 'gen_ai.tool.call.result');
  if (traceloop) keys.push(`traceloop.entity.${name}`);
  return keys;
}

/** A principal as the policy exports it (the same in OTel and X-Ray). */
export function principalValue(principal: string, policy: PrincipalPolicy): string | undefined {
  if (policy === 'omit') return undefined;
  if (policy === 'plain') return principal;
  // A principal's spans (a run, its model and tool calls) hash the same id: once.
  let hashed = hashes.get(principal);
  if (hashed === undefined) {
    hashed = `sha256:${createHash('sha256').update(principal).digest('hex').slice(0, 32)}`;
    if (hashes.size >= 256) hashes.clear();
    hashes.set(principal, hashed);
  }
  return hashed;
}

const hashes = new Map<string, string>();

/** Framework provider ids (`openai.responses`, `amazon-bedrock`, …) → the conventions' names. */
const PROVIDERS: readonly [RegExp, string][] = [
  [/azure/, 'azure.ai.openai'],
  [/bedrock/, 'aws.bedrock'],
  [/vertex/, 'gcp.vertex_ai'],
  [/gemini|google/, 'gcp.gemini'],
  [/anthropic|claude/, 'anthropic'],
  [/mistral/, 'mistral_ai'],
  [/deepseek/, 'deepseek'],
  [/groq/, 'groq'],
  [/cohere/, 'cohere'],
  [/perplexity/, 'perplexity'],
  [/^xai|x_ai|grok/, 'x_ai'],
  [/openai/, 'openai'],
];

/** The well-known `gen_ai.provider.name` of a framework's provider id, else the id itself. */
export function providerName(raw: string): string {
  let name = providers.get(raw);
  if (name === undefined) {
    const id = raw.toLowerCase();
    name = PROVIDERS.find(([pattern]) => pattern.test(id))?.[1] ?? raw;
    if (providers.size >= 256) providers.clear();
    providers.set(raw, name);
  }
  return name;
}

const providers = new Map<string, string>();
