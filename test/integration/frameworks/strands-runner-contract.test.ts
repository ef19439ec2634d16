import { FunctionTool, type JSONSchema } from '@strands-agents/sdk';
import { offlineBedrock as scriptedBedrock } from '../../../examples/strands/bedrock.js';
import {
  STRANDS_INTEGRATION,
  strandsAgent,
  withApproval,
  withToolEffects,
} from '../../../lib/frameworks/strands/index.js';
import {
  type ContractNativeTool,
  runnerContract,
  stepLimitProbe,
} from '../../../lib/testing/runner-contract/index.js';

/** The contract's native tools as Strands `FunctionTool`s, gated with `withApproval`. */
function nativeTool(spec: ContractNativeTool): FunctionTool {
  const made = new FunctionTool({
    name: spec.name,
    description: spec.description,
    inputSchema: spec.parameters as JSONSchema,
    callback: (input) => spec.execute(input as { to: string; amount: number }),
  });
  const gated = spec.needsApproval ? withApproval(made) : made;
  return spec.effects ? withToolEffects(gated, spec.effects) : gated;
}

runnerContract({
  name: 'strands',
  supportsPause: true,
  agent: ({ modelUrl, tools, executor }) =>
    strandsAgent({
      name: 'agent',
      model: scriptedBedrock(modelUrl),
      tools: tools.map((spec) => STRANDS_INTEGRATION.exportTool(spec, { executor })),
    }),
  // Strands' invocation limits: one model call, then the turn cap stops the loop.
  runOption: stepLimitProbe({ limits: { turns: 1 } }),
  reservedOption: 'invocationState',
  nativeAgent: ({ modelUrl, tools }) =>
    strandsAgent({ name: 'agent', model: scriptedBedrock(modelUrl), tools: tools.map(nativeTool) }),
});
