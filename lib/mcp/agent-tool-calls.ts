/**
 * An agent's own tools called directly by a client (MCP's `tools/call` where a deployer opts in):
 * each call runs through the agent's tool runner (the Executor: validation, hooks, timeouts,
 * retries, caching, the ledger) as the calling principal, never the handler itself. A call with
 * an idempotency key runs at most once per (principal, key). A tool that asks for approval is
 * never exposed: no person can approve a direct call, so it must not run unapproved.
 */
import { createHash, randomUUID } from 'node:crypto';
import { makeIdempotent } from '../app/idempotent.js';
import type { IdempotencyStore } from '../app/ports/idempotency.js';
import { denyAll } from '../tools/approval.js';
import type { ToolRunner } from '../tools/runner.js';
import type { AnyToolSpec } from '../tools/spec.js';

/** An agent's ToolSpecs and the runner its framework calls them through (the agents entry's). */
export interface AgentTools {
  readonly tools: readonly AnyToolSpec[];
  readonly executor: ToolRunner;
}

export type AgentToolsMap = Readonly<Record<string, AgentTools>>;

/** One exposed tool: `<agent>__<tool>`. */
export interface ExposedTool {
  readonly name: string;
  readonly agent: string;
  readonly spec: AnyToolSpec;
  readonly executor: ToolRunner;
}

/** A call's time bound when the spec has no timeout of its own (a direct call, no run deadline). */
const CALL_BOUND_MS = 60_000;

/**
 * The tools of the opted-in agents (`'*'`: every agent with tools): approval-gated tools left
 * out, and any name that would shadow a reserved one (an agent, a server tool) skipped.
 */
export function exposedTools(
  all: AgentToolsMap | undefined,
  optIn: ReadonlySet<string> | undefined,
  reserved: ReadonlySet<string>,
): ExposedTool[] {
  if (!all || !optIn || optIn.size === 0) return [];
  const exposed: ExposedTool[] = [];
  for (const [agent, { tools, executor }] of Object.entries(all)) {
    if (!optIn.has('*') && !optIn.has(agent)) continue;
    for (const spec of tools) {
      const name = `${agent}__${spec.name}`;
      if (spec.confirm || reserved.has(name) || name.length > 128) continue;
      if (exposed.some((t) => t.name === name)) continue;
      exposed.push({ name, agent, spec, executor });
    }
  }
  return exposed;
}

export interface AgentToolCall {
  /** The principal the front door already checked. */
  readonly principal: string;
  readonly tool: ExposedTool;
  readonly args: unknown;
  /** The client's idempotency key (already checked with the front door's id rule). */
  readonly key?: string;
}

/**
 * Validates first (bad input claims no key and runs nothing), then runs the call through the
 * tool's runner; with a key, through the idempotency store scoped to the principal.
 */
export function agentToolCaller(store: IdempotencyStore | undefined) {
  const once = makeIdempotent(store, run, {
    key: (call: AgentToolCall) =>
      call.key === undefined ? undefined : ['mcp-agent-tool', call.principal, call.key],
    payload: (call) => ({ tool: call.tool.name, args: call.args }),
    describe: (call) => `idempotency key "${call.key}"`,
    inProgressMs: (call) => (call.tool.spec.timeoutMs ?? CALL_BOUND_MS) * 2,
  });
  return (call: AgentToolCall): Promise<unknown> => {
    const args = call.tool.spec.parse(call.args);
    return once({ ...call, args });
  };
}

function run({ principal, tool, args, key }: AgentToolCall): Promise<unknown> {
  const runId = `mcp-${randomUUID()}`;
  const ctx = {
    runId,
    sessionId: `mcp:${principal}`,
    agent: tool.agent,
    principal,
    context: {},
    signal: AbortSignal.timeout(tool.spec.timeoutMs ?? CALL_BOUND_MS),
    // Stable across a client's retries: a downstream service can dedupe on it too.
    ...(key === undefined ? {} : { idempotencyKey: downstreamKey(principal, key) }),
  };
  // denyAll: defence in depth, an approval-gated tool is refused even if it were reached.
  return tool.executor.runSpec(tool.spec, args, ctx, { callId: runId, approval: denyAll });
}

/**
 * The key a tool sees: a hash of (principal, key). Both may hold `:`, so joining them would let
 * principal `a:b` with key `c` and principal `a` with key `b:c` share one downstream key.
 */
export function downstreamKey(principal: string, key: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([principal, key]))
    .digest('base64url');
  return `mcp:${hash.slice(0, 32)}`;
}
