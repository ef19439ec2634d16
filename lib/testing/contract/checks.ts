import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  currentToolContext,
  runWithToolContext,
  type ToolContext,
} from '../../core/tool-context.js';
import { getIntegration } from '../../frameworks/base/discovery.js';
import type { ExportOptions, Integration } from '../../frameworks/base/integration.js';
import type { ApprovalDecision } from '../../tools/approval.js';
import { abortError, isAbortError, isModelVisibleError } from '../../tools/errors.js';
import type { ToolHook, ToolRunner } from '../../tools/executor.js';
import { ToolRegistry } from '../../tools/registry.js';
import { type AnyToolSpec, defineTool } from '../../tools/spec.js';
import type { ContractHarness, RunnerFactory, RunnerFactoryOptions } from './harness.js';
import { fakeRunnerFactory } from './runners.js';

export interface ContractOptions {
  /** The runner tools are exported with: a fake by default, `executorRunnerFactory` for the real one. */
  runnerFactory?: RunnerFactory;
}

type Seen = { tool: string; args: unknown; callId: string; contextCallId: string | undefined };

/** The kit's tools; each records what its handler saw. */
function kitTools(target: string) {
  const seen: Seen[] = [];
  const record = (tool: string, args: unknown, ctx: { callId: string }) =>
    seen.push({ tool, args, callId: ctx.callId, contextCallId: currentToolContext().callId });
  const echo = defineTool({
    name: 'kit_echo',
    description: 'Repeats a text a number of times.',
    input: z.object({ text: z.string(), times: z.number().int().min(1).max(5) }),
    handler: (args, ctx) => {
      record('kit_echo', args, ctx);
      return { echoed: args.text.repeat(args.times) };
    },
  });
  const slow = defineTool({
    name: 'kit_slow',
    description: 'Waits until cancelled or timed out.',
    input: z.object({}),
    timeoutMs: 30,
    handler: (args, ctx) => {
      record('kit_slow', args, ctx);
      return new Promise<never>((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(abortError(ctx.signal)), { once: true });
      });
    },
  });
  const stopped: string[] = [];
  const wait = defineTool({
    name: 'kit_wait',
    description: 'Waits until cancelled.',
    input: z.object({}),
    handler: (args, ctx) => {
      record('kit_wait', args, ctx);
      return new Promise<never>((_resolve, reject) => {
        ctx.signal.addEventListener(
          'abort',
          () => {
            stopped.push('kit_wait');
            reject(abortError(ctx.signal));
          },
          { once: true },
        );
      });
    },
  });
  // What a bridge that cannot cancel its tool awaits: a call that never settles by itself.
  const stubborn = defineTool({
    name: 'kit_stubborn',
    description: 'Never finishes and ignores cancellation.',
    input: z.object({}),
    timeoutMs: 30,
    handler: (args, ctx) => {
      record('kit_stubborn', args, ctx);
      return new Promise<never>(() => {});
    },
  });
  const pay = defineTool({
    name: 'kit_pay',
    description: 'Pays an amount (needs approval).',
    input: z.object({ amount: z.number().positive() }),
    confirm: true,
    handler: (args, ctx) => {
      record('kit_pay', args, ctx);
      return { paid: args.amount };
    },
  });
  const mine = defineTool({
    name: 'kit_mine',
    description: 'Exported only to this integration.',
    input: z.object({}),
    targets: [target],
    handler: () => ({ ok: true }),
  });
  const foreign = defineTool({
    name: 'kit_foreign',
    description: 'Exported only to another integration.',
    input: z.object({}),
    targets: [`not-${target}`],
    handler: () => ({ ok: true }),
  });
  return { seen, stopped, echo, slow, wait, stubborn, pay, mine, foreign };
}

function kitContext(signal: AbortSignal): ToolContext {
  return { runId: 'kit-run', sessionId: 'kit-session', agent: 'kit-agent', signal, context: {} };
}

type Outcome<R> = { ok: true; result: R } | { ok: false; error: unknown };

/**
 * Registers checks C1–C8 for one integration (vitest describe/it). Run it from a test file:
 * `contractTests(harness)` or `contractTests(harness, { runnerFactory: executorRunnerFactory })`.
 */
export function contractTests<TExported, TResult>(
  harness: ContractHarness<TExported, TResult>,
  options: ContractOptions = {},
): void {
  const runnerFactory = options.runnerFactory ?? fakeRunnerFactory;
  let integration: Integration<TExported>;
  const exportWith = (spec: AnyToolSpec, runner: ToolRunner) =>
    harness.export(spec, { executor: runner });
  const attempt = async (
    exported: TExported,
    args: unknown,
    callId: string,
    signal?: AbortSignal,
  ): Promise<Outcome<TResult>> => {
    const ctx = kitContext(signal ?? new AbortController().signal);
    try {
      const result = await runWithToolContext(ctx, () => harness.call(exported, args, { callId }));
      return harness.isError(result) ? { ok: false, error: result } : { ok: true, result };
    } catch (error) {
      if (isAbortError(error)) throw error;
      return { ok: false, error };
    }
  };
  const kindOf = (error: unknown) => harness.errorKind?.(error) ?? defaultErrorKind(error);

  describe(`integration contract: ${harness.name}`, () => {
    beforeAll(async () => {
      await harness.setup?.();
      integration = await harness.integration();
    });
    afterAll(async () => {
      await harness.teardown?.();
    });

    it('C1 exports the name, description and schema, and honours targets', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const runner = runnerFactory({});
      const registry = new ToolRegistry([tools.echo, tools.mine, tools.foreign]);

      // Act
      const described = harness.describe(await exportWith(tools.echo, runner));
      const all = await exportAll(harness, integration, registry, { executor: runner });

      // Assess
      expect(described.name).toBe(tools.echo.name);
      expect(described.description).toBe(tools.echo.description);
      expect(described.schema).toEqual(
        harness.expectedSchema?.(tools.echo) ?? tools.echo.jsonSchema(),
      );
      expect(all.map((e) => harness.describe(e).name).sort()).toEqual(['kit_echo', 'kit_mine']);
    });

    it('C2 returns what spec.invoke returns', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const exported = await exportWith(tools.echo, runnerFactory({}));
      const args = { text: 'ab', times: 2 };

      // Act
      const outcome = await attempt(exported, args, 'kit-c2');

      // Assess
      expect(outcome.ok).toBe(true);
      if (outcome.ok) expect(harness.value(outcome.result)).toEqual(await tools.echo.invoke(args));
    });

    it('C3 answers invalid arguments with the framework’s error, never a raw zod error', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const exported = await exportWith(tools.echo, runnerFactory({}));

      // Act
      const outcome = await attempt(exported, { text: 42, times: 0 }, 'kit-c3');

      // Assess
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error).not.toBeInstanceOf(z.ZodError);
        expect((outcome.error as Error)?.name).not.toBe('ZodError');
        expect(kindOf(outcome.error)).toBe('invalid-arguments');
      }
      expect(tools.seen).toEqual([]);
    });

    it('C4 applies the runner’s policy: hooks see before and after', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const calls: string[] = [];
      const hook: ToolHook = {
        name: 'kit-hook',
        before: (call) => {
          calls.push(`before:${call.tool}:${call.callId}`);
          return undefined;
        },
        after: (call, outcome) => {
          calls.push(`after:${call.tool}:${outcome.ok ? 'ok' : 'error'}`);
          return undefined;
        },
      };
      const exported = await exportWith(tools.echo, runnerFactory({ hooks: [hook] }));

      // Act
      await attempt(exported, { text: 'x', times: 1 }, 'kit-c4');

      // Assess
      expect(calls).toEqual(
        ['before:kit_echo:kit-c4', 'after:kit_echo:ok'].map((c) =>
          harness.noNativeCallIds ? c.replace(':kit-c4', `:${tools.seen[0]?.callId}`) : c,
        ),
      );
    });

    it('C4 reports a timeout as tool-timeout', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const spec = harness.cancelsTool === false ? tools.stubborn : tools.slow;
      const exported = await exportWith(spec, runnerFactory({}));

      // Act
      const outcome = await attempt(exported, {}, 'kit-c4-timeout');

      // Assess
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(kindOf(outcome.error)).toBe('tool-timeout');
    });

    it('C5 hands the native call id to ctx.callId', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const exported = await exportWith(tools.echo, runnerFactory({}));

      // Act
      await attempt(exported, { text: 'x', times: 1 }, 'kit-call-5');

      // Assess
      const seen = tools.seen[0];
      if (harness.noNativeCallIds) expect(seen?.callId).toMatch(/.+/);
      else expect(seen?.callId).toBe('kit-call-5');
      expect(seen?.contextCallId).toBe(seen?.callId);
    });

    const decisions: [string, ApprovalDecision, number | undefined][] = [
      ['deny skips the tool', { status: 'denied', message: 'not today' }, undefined],
      ['approve runs it', { status: 'approved' }, 3],
    ];
    if (harness.editsSupported) {
      decisions.push(['edits apply', { status: 'approved', arguments: { amount: 7 } }, 7]);
    }
    it.each(decisions)('C6 confirm: %s', async (_label, decision, paid) => {
      // Prepare
      const tools = kitTools(harness.name);
      let asks = 0;
      const port = {
        decide: () => {
          asks += 1;
          return decision;
        },
      };
      const viaFlow = harness.approval === 'native' && !harness.nativeGateOnPort;
      const runnerOptions: RunnerFactoryOptions =
        harness.approval === 'executor' ? { approval: port } : {};
      if (harness.nativeGateOnPort) integration.bindApproval(port);
      let outcome: Outcome<TResult | undefined>;

      // Act
      try {
        const exported = await exportWith(tools.pay, runnerFactory(runnerOptions));
        if (viaFlow) {
          if (!harness.approveFlow) throw new Error('approval "native" needs approveFlow');
          const flow = harness.approveFlow;
          const ctx = kitContext(new AbortController().signal);
          const result = await runWithToolContext(ctx, () =>
            flow(exported, { amount: 3 }, decision, { callId: 'kit-c6' }),
          );
          outcome = { ok: true, result };
        } else {
          outcome = await attempt(exported, { amount: 3 }, 'kit-c6');
        }
      } finally {
        if (harness.nativeGateOnPort) integration.bindApproval(undefined);
      }

      // Assess
      expect(asks).toBe(viaFlow ? 0 : (harness.portAsks ?? 1));
      if (paid === undefined) {
        expect(tools.seen).toEqual([]);
        if (!viaFlow) expect(outcome.ok).toBe(false);
        return;
      }
      expect(tools.seen.map((s) => s.args)).toEqual([{ amount: paid }]);
      expect(outcome.ok).toBe(true);
      if (outcome.ok && outcome.result !== undefined) {
        expect(harness.value(outcome.result)).toEqual({ paid });
      }
    });

    it('C7 propagates cancellation', async () => {
      // Prepare
      const tools = kitTools(harness.name);
      const cancels = harness.cancelsTool !== false;
      const exported = await exportWith(cancels ? tools.wait : tools.stubborn, runnerFactory({}));
      const controller = new AbortController();

      // Act
      const pending = attempt(exported, {}, 'kit-c7', controller.signal);
      await waitFor(() => tools.seen.length > 0);
      controller.abort();

      // Assess: the awaiter is released; a bridge that can cancel also stopped the tool.
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(tools.stopped).toEqual(cancels ? ['kit_wait'] : []);
    });

    it('C8 is found by discovery under its name', async () => {
      // Act
      const found = await getIntegration(harness.name, { ...harness.discovery, refresh: true });

      // Assess
      expect(found.name).toBe(harness.name);
    });
  });
}

async function exportAll<TExported, TResult>(
  harness: ContractHarness<TExported, TResult>,
  integration: Integration<TExported>,
  registry: ToolRegistry,
  options: ExportOptions,
): Promise<TExported[]> {
  if (harness.exportAll) return harness.exportAll(registry, options);
  if (integration.exportTools) return integration.exportTools(registry, options);
  return Promise.all(registry.forTarget(harness.name).map((spec) => harness.export(spec, options)));
}

function defaultErrorKind(error: unknown): string | undefined {
  let value = error;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (isModelVisibleError(value)) return value.error.kind;
  const code = (value as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

async function waitFor(condition: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('the tool was never called');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
