import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { exposedTools } from '../../../lib/mcp/agent-tool-calls.js';
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
