import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runWithToolContext } from '../../../lib/core/index.js';
import {
  type ExportOptions,
  IntegrationBase,
  integrationProblem,
} from '../../../lib/frameworks/base/index.js';
import {
  type AnyToolSpec,
  approveAll,
  defineTool,
  Executor,
  runnerFor,
  ToolRegistry,
} from '../../../lib/tools/index.js';

/** A framework without a tool-error channel: its tools are `(args, meta) => result`. */
class NoChannel extends IntegrationBase<
  (args: unknown, meta: { call: { id: string } }) => Promise<unknown>
> {
  readonly name = 'nochannel';
  readonly requires: readonly string[] = [];
  readonly extra = 'nochannel-sdk';
  protected override readonly callIdFields = ['call.id'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}) {
    return (args: unknown, meta: { call: { id: string } }) =>
      this.runBound(spec, args, meta, options);
  }
}

const pay = defineTool({
  name: 'pay',
  description: 'Pays',
  input: z.object({ amount: z.number() }),
  confirm: true,
  targets: ['nochannel'],
  handler: ({ amount }, ctx) => ({ amount, callId: ctx.callId, runId: ctx.runId }),
});

describe('IntegrationBase', () => {
  it('binds the native call id over the run’s tool context', async () => {
    // Prepare
    const integration = new NoChannel();
    integration.bindApproval(approveAll);
    const tool = integration.exportTool(pay, { executor: new Executor() });
    const run = {
      runId: 'r',
      sessionId: 's',
      agent: 'a',
      signal: new AbortController().signal,
      context: {},
    };

    // Act
    const result = await runWithToolContext(run, () =>
      tool({ amount: 2 }, { call: { id: 'n-1' } }),
    );

    // Assess
    expect(result).toEqual({ amount: 2, callId: 'n-1', runId: 'r' });
  });

  it('returns the model-visible error as the result when there is no error channel', async () => {
    // Prepare
    const integration = new NoChannel();
    const tool = integration.exportTool(pay, { executor: new Executor() });

    // Act
    const bad = await tool({ amount: 'x' }, { call: { id: 'n-2' } });
    const denied = await tool({ amount: 1 }, { call: { id: 'n-3' } });

    // Assess
    expect(bad).toMatchObject({ error: { kind: 'invalid-arguments' } });
    expect(denied).toMatchObject({ error: { kind: 'approval-denied' } });
  });

  it('exports the registry’s tools for its target only', () => {
    // Prepare
    const other = defineTool({
      name: 'other',
      description: 'x',
      input: z.object({}),
      targets: ['x'],
      handler: () => 1,
    });

    // Act
    const tools = new NoChannel().exportTools(new ToolRegistry([pay, other]), {
      executor: new Executor(),
    });

    // Assess
    expect(tools).toHaveLength(1);
  });

  it('says why an object is not an integration', () => {
    // Act / Assess
    expect(integrationProblem(new NoChannel())).toBeUndefined();
    expect(integrationProblem(null)).toMatch(/null/);
    expect(
      integrationProblem({
        exportTool() {},
        bindContext() {},
        bindApproval() {},
        name: 'n',
        extra: 'e',
        requires: [1],
      }),
    ).toMatch(/requires/);
  });

  it('runs an exported tool through the default executor when none is given', async () => {
    // Prepare
    const add = defineTool({
      name: 'add',
      description: 'Adds',
      input: z.object({ a: z.number() }),
      handler: ({ a }) => a + 1,
    });
    const tool = new NoChannel().exportTool(add);

    // Act
    const ok = await tool({ a: 1 }, { call: { id: 'd-1' } });
    const bad = await tool({ a: 'x' }, { call: { id: 'd-2' } });

    // Assess: the executor's validation ran (a raw handler would have answered "x1").
    expect(ok).toBe(2);
    expect(bad).toMatchObject({ error: { kind: 'invalid-arguments' } });
    expect(runnerFor()).toBe(runnerFor());
  });

  it('binds an approval port with no native gate of its own: the executor asks the port', () => {
    // Act / Assess
    expect(new NoChannel().bindApproval(approveAll)).toBeUndefined();
  });

  it('require() passes when its modules resolve and names the package when they do not', () => {
    // Prepare
    class Needs extends NoChannel {
      constructor(override readonly requires: readonly string[]) {
        super();
      }
    }

    // Act / Assess
    expect(() => new Needs(['zod']).require()).not.toThrow();
    expect(() => new Needs(['zod', 'no-such-sdk-xyz']).require()).toThrow(
      expect.objectContaining({
        code: 'missing-dependency',
        message: expect.stringContaining('npm install nochannel-sdk'),
      }),
    );
  });
});
