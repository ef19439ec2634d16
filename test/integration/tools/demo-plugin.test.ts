import { rmSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { getIntegration, type Integration } from '../../../lib/frameworks/base/index.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';
import { makeApp } from './fixture-app.js';

/** The demo framework's tool and result shapes (see test/fixtures/demo-plugin/index.js). */
interface DemoTool {
  name: string;
  description: string;
  parameters: unknown;
  run(args: unknown, call: { id: string }): Promise<DemoResult>;
}
type DemoResult = { ok: true; value: unknown } | { ok: false; error: { kind: string } };

// The plugin is found the way an app would find it: a dependency in the app's package.json.
const root = makeApp({ 'agent-kernel-demo-plugin': 'demo' });
let integration: Integration<DemoTool> | undefined;

const harness: ContractHarness<DemoTool, DemoResult> = {
  name: 'demo',
  editsSupported: true,
  approval: 'executor',
  discovery: { root },
  integration: async () => {
    integration ??= (await getIntegration('demo', { root })) as Integration<DemoTool>;
    return integration;
  },
  export: async (spec, options) => (await harness.integration()).exportTool(spec, options),
  call: (tool, args, { callId }) => tool.run(args, { id: callId }),
  value: (result) => (result.ok ? result.value : undefined),
  isError: (result) => (result as DemoResult | undefined)?.ok === false,
  errorKind: (result) => (result as Extract<DemoResult, { ok: false }>).error?.kind,
  describe: (tool) => ({ name: tool.name, description: tool.description, schema: tool.parameters }),
};

afterAll(() => rmSync(root, { recursive: true, force: true }));

// Against the kit's stand-in runner, and against the real Executor.
contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });

// A framework with no call ids of its own: the plugin names each call itself (C5's other case).
// Its bridge awaits calls it never cancels itself: the checks only ask that the awaiter is freed.
contractTests(
  {
    ...harness,
    noNativeCallIds: true,
    cancelsTool: false,
    call: (tool, args) => tool.run(args, undefined as never),
  },
  { runnerFactory: executorRunnerFactory },
);

// The kit's options for frameworks whose gate differs from the plain executor path, each used by
// a harness so a kit that ignored the option would fail these checks.

// A native gate built on the port given to `bindApproval` (the plugin hands it to the executor):
// C6 must bind the port and count its asks, not drive `approveFlow`.
contractTests(
  { ...harness, approval: 'native', nativeGateOnPort: true },
  { runnerFactory: executorRunnerFactory },
);

// A gate that asks its port twice per decided call (a preview, then the commit): C6 expects two.
const askingTwice: ContractHarness<DemoTool, DemoResult> = {
  ...harness,
  approval: 'native',
  nativeGateOnPort: true,
  portAsks: 2,
  integration: async () => {
    const inner = await harness.integration();
    return {
      ...inner,
      exportTool: (spec, options) => inner.exportTool(spec, options),
      bindContext: (call) => inner.bindContext(call),
      bindApproval: (port) =>
        inner.bindApproval(
          port && {
            decide: async (request) => {
              await port.decide(request);
              return port.decide(request);
            },
          },
        ),
    } as Integration<DemoTool>;
  },
};
contractTests(askingTwice, { runnerFactory: executorRunnerFactory });

// A framework that exports a registry its own way: C1 must use `exportAll` (counted below).
let wholeRegistryExports = 0;
contractTests({
  ...harness,
  exportAll: async (registry, options) => {
    wholeRegistryExports += 1;
    const inner = await harness.integration();
    return registry.forTarget('demo').map((spec) => inner.exportTool(spec, options));
  },
});
afterAll(() => expect(wholeRegistryExports).toBe(1));
