/**
 * A remote MCP server's tools as ToolSpecs: each call goes through the Executor like any other
 * tool (validation, approval, timeouts, retries, the ledger, the run journal's at-most-once), in
 * every framework. The SDK is imported only under lib/mcp (an optional peer, like a framework).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { ToolEffects } from '../core/journal.js';
import { runWithToolContext } from '../core/tool-context.js';
import { ToolArgsInvalid, ToolError } from '../tools/errors.js';
import {
  type AnyToolSpec,
  directContext,
  type ToolCallContext,
  ToolNameSchema,
} from '../tools/spec.js';

/** The `_meta` key under which every call carries its idempotency key. */
export const IDEMPOTENCY_META_KEY = 'io.agent-kernel/idempotency-key';

export interface McpToolsOptions {
  /** The server's streamable HTTP endpoint. */
  readonly url: string | URL;
  /** Sent with every request (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Prepended to each tool's name (`<prefix>_<name>`), so two servers cannot collide. */
  readonly prefix?: string;
  /** Only these remote tools (by their remote name); all when absent. */
  readonly include?: readonly string[];
  /**
   * Which calls need approval: `destructive` (tools whose annotations say `destructiveHint`, or
   * say nothing), `all`, or `none` (the default).
   */
  readonly confirm?: 'none' | 'destructive' | 'all';
  readonly timeoutMs?: number;
  /** Retries of a failed transport (never of a tool's own `isError` result). */
  readonly retries?: number;
  /**
   * An argument of the server's tools that takes an idempotency key (e.g. `idempotency_key`):
   * filled from the call's key and hidden from the model. The key always rides in `_meta` too.
   */
  readonly idempotencyArgument?: string;
  readonly fetch?: typeof fetch;
}

/** What the ToolSpec layer takes from MCP's annotations: no annotations → side-effecting. */
export function effectsFromAnnotations(annotations: Tool['annotations']): ToolEffects {
  if (annotations?.readOnlyHint === true) return { readOnly: true };
  return annotations?.idempotentHint === true ? { idempotent: true } : {};
}

/** Whether a tool counts as destructive: per the spec, a non-read-only tool is by default. */
export function isDestructive(annotations: Tool['annotations']): boolean {
  if (annotations?.readOnlyHint === true) return false;
  return annotations?.destructiveHint !== false;
}

/** One lazily connected client per server; dropped on a transport failure and made again. */
class Connection {
  #client: Promise<Client> | undefined;

  constructor(readonly options: McpToolsOptions) {}

  client(): Promise<Client> {
    this.#client ??= this.#connect().catch((err) => {
      this.#client = undefined;
      throw err;
    });
    return this.#client;
  }

  reset(): void {
    const old = this.#client;
    this.#client = undefined;
    void old?.then((c) => c.close()).catch(() => undefined);
  }

  async #connect(): Promise<Client> {
    const headers = { ...(this.options.headers ?? {}) };
    const transport = new StreamableHTTPClientTransport(new URL(this.options.url), {
      requestInit: { headers },
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
    const client = new Client({ name: 'agent-kernel', version: '1' });
    await client.connect(transport);
    return client;
  }
}

/** Lists the server's tools and returns them as ToolSpecs. */
export async function mcpTools(options: McpToolsOptions): Promise<AnyToolSpec[]> {
  const connection = new Connection(options);
  const client = await connection.client();
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools
    .filter((t) => !options.include || options.include.includes(t.name))
    .map((tool) => mcpToolSpec(tool, connection));
}

function mcpToolSpec(tool: Tool, connection: Connection): AnyToolSpec {
  const { options } = connection;
  const name = options.prefix ? `${options.prefix}_${tool.name}` : tool.name;
  const checked = ToolNameSchema.safeParse(name);
  if (!checked.success) throw new ToolError(`MCP tool "${tool.name}" has an unusable name`);
  const keyArg = options.idempotencyArgument;
  const takesKey = keyArg !== undefined && keyArg in (tool.inputSchema.properties ?? {});
  const schema = modelSchema(tool.inputSchema, takesKey ? keyArg : undefined);
  const input = inputValidator(schema);
  const effects = effectsFromAnnotations(tool.annotations);
  // A lost response of a side-effecting call is ambiguous: only safe calls retry it.
  const retrySafe = effects.readOnly === true || effects.idempotent === true;
  const confirm =
    options.confirm === 'all' ||
    (options.confirm === 'destructive' && isDestructive(tool.annotations));
  const parse = (args: unknown): unknown => {
    const parsed = input.safeParse(args ?? {});
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join('.'),
      message: i.message,
    }));
    throw new ToolArgsInvalid(name, issues);
  };
  const handler = async (args: unknown, ctx: ToolCallContext): Promise<unknown> => {
    const sent = takesKey ? { ...(args as object), [keyArg]: ctx.idempotencyKey } : args;
    return callRemote(connection, tool.name, sent as Record<string, unknown>, ctx, retrySafe);
  };
  const spec: AnyToolSpec = {
    name,
    description: tool.description ?? tool.title ?? tool.name,
    input,
    handler,
    targets: undefined,
    confirm,
    timeoutMs: options.timeoutMs,
    retry: { retries: options.retries ?? 0, backoffMs: 100, factor: 2, maxBackoffMs: 5_000 },
    cache: undefined,
    sensitive: takesKey ? [keyArg] : [],
    effects: Object.freeze(effects),
    jsonSchema: () => structuredClone(schema),
    parse,
    invoke: async (args) => {
      const parsed = parse(args);
      const ctx = directContext();
      return runWithToolContext(ctx, () => handler(parsed, ctx));
    },
    exportsTo: () => true,
  };
  return Object.freeze(spec);
}

/** The schema the model sees: the server's, without the idempotency argument we fill in. */
function modelSchema(schema: Tool['inputSchema'], hidden: string | undefined) {
  const { $schema: _ignored, ...rest } = structuredClone(schema) as Record<string, unknown>;
  if (!hidden) return rest;
  const properties = { ...(rest.properties as Record<string, unknown>) };
  delete properties[hidden];
  const required = (rest.required as string[] | undefined)?.filter((r) => r !== hidden);
  return { ...rest, properties, ...(required ? { required } : {}) };
}

/** Validates against the server's JSON Schema (zod's converter); a schema it cannot read passes. */
function inputValidator(schema: Record<string, unknown>): z.ZodType<unknown> {
  try {
    return z.fromJSONSchema(schema as never) as z.ZodType<unknown>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

async function callRemote(
  connection: Connection,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
  retrySafe: boolean,
): Promise<unknown> {
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    const client = await connection.client();
    const _meta = { [IDEMPOTENCY_META_KEY]: ctx.idempotencyKey };
    result = await client.callTool({ name: tool, arguments: args, _meta }, undefined, {
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    connection.reset();
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolError(`MCP server call failed: ${message}`, { retryable: retrySafe, cause: err });
  }
  const text = textOf(result.content);
  if (result.isError) throw new ToolError(text || `MCP tool "${tool}" failed`);
  return result.structuredContent ?? (text !== undefined ? text : (result.content ?? null));
}

/** The text of a result made only of text blocks; undefined when it holds anything else. */
function textOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  if (!content.every((c) => c?.type === 'text')) return undefined;
  return content.map((c) => String(c.text)).join('\n');
}
