import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useLocalStack } from './clients.js';

/** Real side effects, counted where the tools run (the stack's handlers run in this process). */
const effects = vi.hoisted(() => ({
  increments: new Map<string, number>(),
  wired: 0,
  ghost: 0,
  failed: 0,
  hooked: 0,
}));

// The demo's agents entry plus its own tools: `demo` (opted in) and `ghost` (not opted in).
vi.mock('#agents', async (importOriginal) => {
  const original = (await importOriginal()) as typeof import('../../../examples/demo/agents.js');
  const z = await import('zod');
  const { defineTool, Executor } = await import('../../../lib/tools/index.js');
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a city up.',
    input: z.object({ city: z.string().min(1) }),
    effects: { readOnly: true },
    handler: ({ city }) => ({ city, country: city === 'Paris' ? 'France' : 'unknown' }),
  });
  const increment = defineTool({
    name: 'increment',
    description: 'Adds to the caller’s counter.',
    input: z.object({ by: z.number().int().min(1).max(10) }),
    handler: ({ by }, ctx) => {
      const who = ctx.principal ?? '?';
      const count = (effects.increments.get(who) ?? 0) + by;
      effects.increments.set(who, count);
      return { count, principal: who };
    },
  });
  const wire = defineTool({
    name: 'wire_money',
    description: 'Wires money (a person approves each call).',
    input: z.object({ amount: z.number() }),
    confirm: true,
    handler: () => {
      effects.wired += 1;
      return { wired: true };
    },
  });
  const fail = defineTool({
    name: 'fail',
    description: 'Always fails.',
    input: z.object({}),
    handler: () => {
      effects.failed += 1;
      throw new Error('boom');
    },
  });
  const secret = defineTool({
    name: 'secret',
    description: 'Not opted in.',
    input: z.object({}),
    handler: () => {
      effects.ghost += 1;
      return { ran: true };
    },
  });
  return {
    ...original,
    createAgents: (deps: Parameters<typeof original.createAgents>[0] = {}) => {
      const executor = new Executor({
        ...(deps.ledger ? { ledger: deps.ledger } : {}),
        // Proves the call goes through the Executor's pipeline (a hook), not the handler alone.
        hooks: [
          {
            name: 'count',
            before: () => {
              effects.hooked += 1;
              return undefined;
            },
          },
        ],
      });
      return {
        ...original.createAgents(deps),
        agentTools: {
          demo: { tools: [lookup, increment, wire, fail], executor },
          ghost: { tools: [secret], executor },
        },
      };
    },
  };
});

beforeAll(() => {
  process.env.MCP_AGENT_TOOLS = 'demo';
});
const stack = useLocalStack();

const KEY = 'io.agent-kernel/idempotency-key';

async function clientAs(principal: string): Promise<Client> {
  const token = await stack.tokenFor(principal);
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.streamUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  return client;
}

describe("the opted-in agents' own tools on /mcp (local stack)", () => {
  it('lists the opted-in tools with annotations and schemas; not the others', async () => {
    const client = await clientAs('alice');
    const { tools } = await client.listTools();
    await client.close();

    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['demo', 'demo__lookup', 'demo__increment']));
    expect(names).not.toContain('ghost__secret');
    // Approval-gated: no person can approve a direct call, so it is not offered.
    expect(names).not.toContain('demo__wire_money');
    const lookup = tools.find((t) => t.name === 'demo__lookup');
    expect(lookup?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(lookup?.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(tools.find((t) => t.name === 'demo__increment')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
  });

  it('a read-only tool runs through the Executor and answers structured content', async () => {
    const hooked = effects.hooked;
    const client = await clientAs('alice');
    const result = await client.callTool({ name: 'demo__lookup', arguments: { city: 'Paris' } });
    await client.close();

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ city: 'Paris', country: 'France' });
    expect(effects.hooked).toBe(hooked + 1);
  });

  it('one idempotency key runs a side effect once; another principal with it runs its own', async () => {
    const alice = await clientAs('alice');
    const bob = await clientAs('bob');
    const params = { name: 'demo__increment', arguments: { by: 2 }, _meta: { [KEY]: 'inc-1' } };

    const first = await alice.callTool(params);
    const second = await alice.callTool(params);
    const bobs = await bob.callTool(params);
    const unkeyed = await alice.callTool({ name: 'demo__increment', arguments: { by: 1 } });
    const conflict = alice.callTool({ ...params, arguments: { by: 3 } });

    expect(first.structuredContent).toEqual({ count: 2, principal: 'alice' });
    expect(second.structuredContent).toEqual(first.structuredContent);
    // Bob's key space is his own: his call ran (as bob), alice's result was not replayed to him.
    expect(bobs.structuredContent).toEqual({ count: 2, principal: 'bob' });
    expect(unkeyed.structuredContent).toEqual({ count: 3, principal: 'alice' });
    await expect(conflict).rejects.toMatchObject({ data: { code: 'request-conflict' } });
    expect(effects.increments.get('alice')).toBe(3);
    expect(effects.increments.get('bob')).toBe(2);
    await alice.close();
    await bob.close();
  });

  it('racing calls with one key: the side effect happens once', async () => {
    const client = await clientAs('dave');
    const params = { name: 'demo__increment', arguments: { by: 1 }, _meta: { [KEY]: 'race' } };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => client.callTool(params)),
    );
    await client.close();

    expect(effects.increments.get('dave')).toBe(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') {
        expect(outcome.value.structuredContent).toEqual({ count: 1, principal: 'dave' });
      } else {
        expect(outcome.reason).toMatchObject({ data: { code: 'request-in-progress' } });
      }
    }
  });

  it("a tool's own failure is an isError result; it claims no key, so a retry runs again", async () => {
    const client = await clientAs('erin');
    const params = { name: 'demo__fail', arguments: {}, _meta: { [KEY]: 'fail-1' } };
    const first = await client.callTool(params);
    const second = await client.callTool(params);
    await client.close();

    for (const result of [first, second]) {
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ error: { kind: 'tool-failed' } });
    }
    expect(effects.failed).toBe(2);
  });

  it('bad input runs nothing: wrong args, unknown tool, a non-opted agent, the gated tool', async () => {
    const before = { ...effects, increments: new Map(effects.increments) };
    const client = await clientAs('carol');
    const bad = [
      client.callTool({ name: 'demo__increment', arguments: { by: 'two' } }),
      client.callTool({ name: 'demo__increment', arguments: { by: 99 } }),
      client.callTool({ name: 'demo__increment', arguments: {}, _meta: { [KEY]: 'k-bad' } }),
      client.callTool({ name: 'demo__increment', arguments: { by: 1 }, _meta: { [KEY]: '' } }),
    ];
    for (const call of bad) {
      await expect(call).rejects.toMatchObject({ code: -32602 });
    }
    const guessed = await client
      .callTool({ name: 'demo__nope', arguments: {} })
      .catch((e: unknown) => e);
    const ghost = await client
      .callTool({ name: 'ghost__secret', arguments: {} })
      .catch((e: unknown) => e);
    const gated = await client
      .callTool({ name: 'demo__wire_money', arguments: { amount: 1_000 } })
      .catch((e: unknown) => e);
    await client.close();

    // A non-opted agent's tool, and the approval-gated one, answer as a guessed name does.
    const shape = (e: unknown) => {
      const { code, data, message } = e as { code: number; data: unknown; message: string };
      return { code, data, message: message.replace(/"[^"]*"/, '"…"') };
    };
    expect(shape(guessed)).toMatchObject({ code: -32602, data: { code: 'agent-not-found' } });
    expect(shape(ghost)).toEqual(shape(guessed));
    expect(shape(gated)).toEqual(shape(guessed));
    expect(effects.increments.get('carol')).toBeUndefined();
    expect(effects.wired).toBe(0);
    expect(effects.ghost).toBe(before.ghost);
    // The bad key claimed nothing: the same key with good arguments runs.
    const again = await clientAs('carol');
    const ok = await again.callTool({
      name: 'demo__increment',
      arguments: { by: 1 },
      _meta: { [KEY]: 'k-bad' },
    });
    await again.close();
    expect(ok.structuredContent).toEqual({ count: 1, principal: 'carol' });
  });

  it('no token: 401 with a Bearer challenge, nothing listed or run', async () => {
    const total = () => [...effects.increments.values()].reduce((a, b) => a + b, 0);
    const before = total();
    const response = await fetch(`${stack.streamUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'demo__increment', arguments: { by: 1 } },
      }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    const body = (await response.json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32001);
    expect(total()).toBe(before);
  });
});
