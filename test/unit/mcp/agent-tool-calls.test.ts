import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { agentToolCaller, exposedTools } from '../../../lib/mcp/agent-tool-calls.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';

const tool = (name: string, confirm = false) =>
  defineTool({ name, description: name, input: z.object({}), confirm, handler: () => ({}) });
const executor = new Executor();
const all = {
  a: { tools: [tool('read'), tool('pay', true)], executor },
  b: { tools: [tool('x')], executor },
  [`c${'c'.repeat(63)}`]: { tools: [tool('t'.repeat(64))], executor },
};
const names = (optIn: string[] | undefined, reserved: string[] = []) =>
  exposedTools(all, optIn && new Set(optIn), new Set(reserved)).map((t) => t.name);

describe('exposedTools: which agents’ own tools /mcp offers', () => {
  it('only opted-in agents; `*` every one; none when unset or empty', () => {
    expect(names(['a'])).toEqual(['a__read']);
    expect(names(['*'])).toEqual(['a__read', 'b__x']);
    expect(names(undefined)).toEqual([]);
    expect(names([])).toEqual([]);
    expect(exposedTools(undefined, new Set(['*']), new Set())).toEqual([]);
  });

  it('never an approval-gated tool, a reserved name, or a name over MCP’s 128 characters', () => {
    expect(names(['a', 'b'])).not.toContain('a__pay');
    expect(names(['*'], ['b__x'])).toEqual(['a__read']);
    expect(names([`c${'c'.repeat(63)}`])).toEqual([]);
  });
});

describe('agentToolCaller: the idempotency key a tool sees', () => {
  it('is stable per (principal, key) and never shared by two pairs that join alike', async () => {
    // Prepare
    const seen: string[] = [];
    const spec = defineTool({
      name: 'note',
      description: 'note',
      input: z.object({}),
      handler: (_args, ctx) => {
        seen.push(ctx.idempotencyKey);
        return {};
      },
    });
    const call = agentToolCaller(undefined);
    const exposed = { name: 'a__note', agent: 'a', spec, executor: new Executor() };

    // Act
    for (const [principal, key] of [
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['a', 'b:c'],
    ] as const) {
      await call({ principal, tool: exposed, args: {}, key });
    }

    // Assess
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[1]).toBe(seen[2]);
    expect(seen.every((k) => /^mcp:[A-Za-z0-9_-]{32}$/.test(k))).toBe(true);
  });
});
