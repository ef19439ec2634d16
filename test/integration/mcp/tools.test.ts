import { describe, expect, it } from 'vitest';
import { effectsFromAnnotations, isDestructive, mcpTools } from '../../../lib/mcp/tools.js';
import { approveAll, Executor, ToolArgsInvalid } from '../../../lib/tools/index.js';
import { useRemoteMcp } from '../../helpers/mcp-remote.js';

const remote = useRemoteMcp();
const ctx = { runId: 'r1', sessionId: 's1', agent: 'a' };

async function tool(name: string, options: Parameters<typeof mcpTools>[0] | object = {}) {
  const specs = await mcpTools({ url: remote.url, ...options });
  const spec = specs.find((s) => s.name === name);
  if (!spec) throw new Error(`no ${name} among ${specs.map((s) => s.name)}`);
  return spec;
}

describe('a remote MCP server’s tools as ToolSpecs', () => {
  it('lists every remote tool with its JSON Schema and description', async () => {
    const specs = await mcpTools({ url: remote.url });
    expect(specs.map((s) => s.name)).toEqual(['pay', 'balance', 'refund']);
    expect((await tool('pay')).jsonSchema()).toMatchObject({
      type: 'object',
      required: ['to', 'amount'],
    });
  });

  it.each([
    [undefined, {}, true],
    [{ readOnlyHint: true }, { readOnly: true }, false],
    [{ idempotentHint: true }, { idempotent: true }, true],
    [{ idempotentHint: true, destructiveHint: false }, { idempotent: true }, false],
    [{ destructiveHint: true }, {}, true],
  ])('annotations %j → effects %j (destructive: %s)', (annotations, effects, destructive) => {
    expect(effectsFromAnnotations(annotations)).toEqual(effects);
    expect(isDestructive(annotations)).toBe(destructive);
  });

  it('takes effects from the annotations: none is side-effecting, readOnlyHint is read-only', async () => {
    expect((await tool('pay')).effects).toEqual({});
    expect((await tool('balance')).effects).toEqual({ readOnly: true });
    expect((await tool('refund')).effects).toEqual({ idempotent: true });
  });

  it('runs under the executor: the result, and the idempotency key in _meta', async () => {
    const executor = new Executor();
    const result = await executor.runSpec(await tool('pay'), { to: 'ann', amount: 3 }, ctx, {
      callId: 'c-pay',
    });
    expect(result).toBe('sent 3 to ann');
    const call = remote.effects.findLast((e) => e.tool === 'pay');
    expect(call?.meta?.['io.agent-kernel/idempotency-key']).toBe('r1:c-pay');
  });

  it('returns structured content when the server gives it', async () => {
    const result = await new Executor().runSpec(await tool('balance'), {}, ctx, { callId: 'c-b' });
    expect(result).toEqual({ balance: 90 });
  });

  it('fills a declared idempotency argument from the call’s key and hides it from the model', async () => {
    const spec = await tool('refund', { idempotencyArgument: 'idempotency_key' });
    expect(JSON.stringify(spec.jsonSchema())).not.toContain('idempotency_key');
    await new Executor().runSpec(spec, { payment: 'p1' }, ctx, { callId: 'c-r' });
    expect(remote.effects.findLast((e) => e.tool === 'refund')?.args).toEqual({
      payment: 'p1',
      idempotency_key: 'r1:c-r',
    });
  });

  it('bad arguments are refused before the server is called', async () => {
    const before = remote.effects.length;
    const spec = await tool('pay');
    expect(() => spec.parse({ to: 'ann' })).toThrow(ToolArgsInvalid);
    await expect(
      new Executor().runSpec(spec, { to: 'ann', amount: 'x' }, ctx, { callId: 'c-bad' }),
    ).rejects.toMatchObject({ code: 'invalid-arguments' });
    expect(remote.effects.length).toBe(before);
  });

  it('confirm: destructive asks approval for tools without annotations, not for read-only ones', async () => {
    const options = { confirm: 'destructive' };
    expect((await tool('pay', options)).confirm).toBe(true);
    expect((await tool('balance', options)).confirm).toBe(false);
    expect((await tool('refund', options)).confirm).toBe(false);
    const executor = new Executor({ approval: approveAll });
    const spec = await tool('pay', options);
    await expect(
      executor.runSpec(spec, { to: 'b', amount: 1 }, ctx, { callId: 'c-ok' }),
    ).resolves.toBe('sent 1 to b');
    await expect(
      new Executor().runSpec(spec, { to: 'b', amount: 1 }, ctx, { callId: 'c-no' }),
    ).rejects.toMatchObject({ code: 'approval-denied' });
  });

  it('an unreachable server refuses the listing with an error', async () => {
    await expect(mcpTools({ url: 'http://127.0.0.1:9/mcp' })).rejects.toThrow();
  });
});
