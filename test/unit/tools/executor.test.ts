import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  currentToolContext,
  runWithToolContext,
  type ToolContext,
} from '../../../lib/core/index.js';
import {
  ApprovalDenied,
  approvalFrom,
  approveAll,
  defineTool,
  Executor,
  GuardrailBlocked,
  InMemoryToolLedger,
  RunLimitExceeded,
  ToolArgsInvalid,
  ToolError,
  type ToolHook,
  type ToolSpecConfig,
  ToolTimeout,
} from '../../../lib/tools/index.js';

function ctx(signal = new AbortController().signal): ToolContext {
  return { runId: 'r1', sessionId: 's1', agent: 'a', signal, context: {} };
}

const AddInput = z.object({ a: z.number(), b: z.number() });

function adder(extra: Partial<ToolSpecConfig<typeof AddInput, number>> = {}) {
  const calls: { args: unknown; callId: string; seenCallId?: string; attempt: number }[] = [];
  const spec = defineTool({
    name: 'add',
    description: 'Adds',
    input: AddInput,
    handler: ({ a, b }, c) => {
      calls.push({
        args: { a, b },
        callId: c.callId,
        seenCallId: currentToolContext().callId,
        attempt: c.attempt,
      });
      return a + b;
    },
    ...extra,
  });
  return { spec, calls };
}

describe('Executor', () => {
  it('validates, runs the handler in the tool context with the call id, and records ok', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    const { spec, calls } = adder();

    // Act
    const result = await new Executor({ ledger }).runSpec(spec, { a: 1, b: 2 }, ctx(), {
      callId: 'c1',
    });

    // Assess
    expect(result).toBe(3);
    expect(calls).toEqual([{ args: { a: 1, b: 2 }, callId: 'c1', seenCallId: 'c1', attempt: 1 }]);
    expect(ledger.entries).toEqual([
      expect.objectContaining({
        callId: 'c1',
        tool: 'add',
        outcome: 'ok',
        approval: 'not-required',
        attempts: 1,
        runId: 'r1',
        sessionId: 's1',
      }),
    ]);
    expect(ledger.entries[0]?.argsHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fills a partial context from the run’s tool context', async () => {
    // Prepare
    const { spec, calls } = adder();

    // Act
    await runWithToolContext(ctx(), () =>
      new Executor().runSpec(spec, { a: 1, b: 1 }, { callId: 'p1' }, { callId: 'p1' }),
    );

    // Assess
    expect(calls[0]?.seenCallId).toBe('p1');
  });

  it('refuses invalid arguments with ToolArgsInvalid and records invalid-args', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    const { spec, calls } = adder();

    // Act
    const run = new Executor({ ledger }).runSpec(spec, { a: 'x' }, ctx(), { callId: 'c2' });

    // Assess
    await expect(run).rejects.toBeInstanceOf(ToolArgsInvalid);
    await expect(run).rejects.toThrow(/Invalid arguments for tool "add": a: .*; b: /);
    expect(calls).toEqual([]);
    expect(ledger.entries[0]).toMatchObject({
      outcome: 'invalid-args',
      errorKind: 'invalid-arguments',
    });
  });

  it('lets hooks rewrite arguments, block a call and see every outcome', async () => {
    // Prepare
    const seen: string[] = [];
    const rewrite: ToolHook = {
      name: 'rewrite',
      before: (call) => ({ args: { ...(call.args as object), b: 10 } }),
      after: (_call, outcome) => {
        seen.push(outcome.ok ? `ok:${outcome.result}` : 'error');
        return outcome.ok ? { result: Number(outcome.result) * 2 } : undefined;
      },
    };
    const block: ToolHook = {
      name: 'block',
      before: () => {
        throw new GuardrailBlocked('add', 'no');
      },
    };
    const { spec } = adder();

    // Act
    const rewritten = await new Executor({ hooks: [rewrite] }).runSpec(
      spec,
      { a: 1, b: 2 },
      ctx(),
      { callId: 'h1' },
    );
    const blocked = new Executor({ hooks: [block] }).runSpec(spec, { a: 1, b: 2 }, ctx(), {
      callId: 'h2',
    });

    // Assess
    expect(rewritten).toBe(22);
    expect(seen).toEqual(['ok:11']);
    await expect(blocked).rejects.toMatchObject({ code: 'guardrail-blocked' });
  });

  it('asks the port for confirm tools: deny, approve, approve with edits; denies without a port', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    const { spec, calls } = adder({ confirm: true });
    const edit = approvalFrom((req) => ({
      status: 'approved',
      arguments: { ...(req.args as object), a: 100 },
    }));
    const deny = approvalFrom(() => ({ status: 'denied', message: 'too much' }));

    // Act
    const denied = new Executor({ ledger, approval: deny }).runSpec(spec, { a: 1, b: 2 }, ctx(), {
      callId: 'd',
    });
    await expect(denied).rejects.toBeInstanceOf(ApprovalDenied);
    const noPort = new Executor({ ledger }).runSpec(spec, { a: 1, b: 2 }, ctx(), { callId: 'n' });
    await expect(noPort).rejects.toThrow(/not approved/);
    const approved = await new Executor({ ledger, approval: approveAll }).runSpec(
      spec,
      { a: 1, b: 2 },
      ctx(),
      { callId: 'y' },
    );
    const edited = await new Executor({ ledger, approval: edit }).runSpec(
      spec,
      { a: 1, b: 2 },
      ctx(),
      { callId: 'e' },
    );

    // Assess
    expect([approved, edited]).toEqual([3, 102]);
    expect(calls.map((c) => c.callId)).toEqual(['y', 'e']);
    expect(ledger.entries.map((e) => [e.callId, e.outcome, e.approval])).toEqual([
      ['d', 'denied', 'denied'],
      ['n', 'denied', 'denied'],
      ['y', 'ok', 'approved'],
      ['e', 'ok', 'approved-edited'],
    ]);
  });

  it('skips its port when the framework’s gate already decided (ctx.approval)', async () => {
    // Prepare
    let asked = 0;
    const port = approvalFrom(() => {
      asked += 1;
      return { status: 'denied' };
    });
    const { spec } = adder({ confirm: true });

    // Act
    const result = await new Executor({ approval: port }).runSpec(
      spec,
      { a: 1, b: 1 },
      { ...ctx(), approval: { status: 'approved' } },
      { callId: 'g' },
    );

    // Assess
    expect(result).toBe(2);
    expect(asked).toBe(0);
  });

  it('times out a slow handler with ToolTimeout and aborts its signal', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    let aborted = false;
    const spec = defineTool({
      name: 'slow',
      description: 'Slow',
      input: z.object({}),
      timeoutMs: 20,
      handler: (_args, c) =>
        new Promise(() =>
          c.signal.addEventListener('abort', () => {
            aborted = true;
          }),
        ),
    });

    // Act
    const run = new Executor({ ledger }).runSpec(spec, {}, ctx(), { callId: 't' });

    // Assess
    await expect(run).rejects.toBeInstanceOf(ToolTimeout);
    expect(aborted).toBe(true);
    expect(ledger.entries[0]).toMatchObject({ outcome: 'timeout', errorKind: 'tool-timeout' });
  });

  it('retries only retryable errors, with backoff, and records the attempts', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    let n = 0;
    const flaky = defineTool({
      name: 'flaky',
      description: 'Fails twice',
      input: z.object({}),
      retries: { retries: 3, backoffMs: 1 },
      handler: () => {
        n += 1;
        if (n < 3) throw new ToolError('busy', { retryable: true });
        return 'done';
      },
    });
    const broken = defineTool({
      name: 'broken',
      description: 'Always fails',
      input: z.object({}),
      retries: 3,
      handler: () => {
        throw new TypeError('secret detail');
      },
    });

    // Act
    const result = await new Executor({ ledger }).runSpec(flaky, {}, ctx(), { callId: 'f' });
    const failed = new Executor({ ledger }).runSpec(broken, {}, ctx(), { callId: 'b' });

    // Assess
    expect(result).toBe('done');
    await expect(failed).rejects.toBeInstanceOf(TypeError);
    expect(ledger.entries.map((e) => [e.tool, e.outcome, e.attempts])).toEqual([
      ['flaky', 'ok', 3],
      ['broken', 'error', 1],
    ]);
    expect(ledger.entries[1]?.errorKind).toBe('tool-failed');
  });

  it('caches by validated arguments within a session, for the TTL', async () => {
    // Prepare
    let now = 1_000;
    const ledger = new InMemoryToolLedger();
    const { spec, calls } = adder({ cache: { ttlMs: 100 } });
    const executor = new Executor({ ledger, now: () => now });

    // Act
    await executor.runSpec(spec, { a: 1, b: 2 }, ctx(), { callId: 'c1' });
    await executor.runSpec(spec, { b: 2, a: 1 }, ctx(), { callId: 'c2' });
    await executor.runSpec(spec, { a: 1, b: 2 }, { ...ctx(), sessionId: 's2' }, { callId: 'c3' });
    now += 200;
    await executor.runSpec(spec, { a: 1, b: 2 }, ctx(), { callId: 'c4' });

    // Assess
    expect(calls.map((c) => c.callId)).toEqual(['c1', 'c3', 'c4']);
    expect(ledger.entries.map((e) => e.outcome)).toEqual(['ok', 'cached', 'ok', 'ok']);
  });

  it('enforces run limits per run and per tool', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    const { spec } = adder();
    const executor = new Executor({ ledger, limits: { toolCallsPerRun: 2 } });
    await executor.runSpec(spec, { a: 1, b: 1 }, ctx(), { callId: '1' });
    await executor.runSpec(spec, { a: 'bad' }, ctx(), { callId: '2' }).catch(() => undefined);

    // Act
    const third = executor.runSpec(spec, { a: 1, b: 1 }, ctx(), { callId: '3' });
    const otherRun = await executor.runSpec(
      spec,
      { a: 1, b: 1 },
      { ...ctx(), runId: 'r2' },
      { callId: '4' },
    );

    // Assess
    await expect(third).rejects.toBeInstanceOf(RunLimitExceeded);
    expect(otherRun).toBe(2);
    expect(ledger.entries.map((e) => e.outcome)).toEqual(['ok', 'invalid-args', 'limit', 'ok']);
  });

  it('propagates cancellation as an AbortError and records cancelled', async () => {
    // Prepare
    const ledger = new InMemoryToolLedger();
    const controller = new AbortController();
    const spec = defineTool({
      name: 'wait',
      description: 'Waits',
      input: z.object({}),
      handler: () => new Promise(() => {}),
    });

    // Act
    const run = new Executor({ ledger }).runSpec(spec, {}, ctx(controller.signal), { callId: 'x' });
    setTimeout(() => controller.abort(), 5);

    // Assess
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(ledger.entries[0]).toMatchObject({ outcome: 'cancelled' });
  });
});
