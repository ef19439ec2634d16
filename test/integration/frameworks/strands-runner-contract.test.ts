import { NodeHttpHandler } from '@smithy/node-http-handler';
import { BedrockModel, FunctionTool, type JSONSchema } from '@strands-agents/sdk';
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

/**
 * Strands' default provider, Bedrock, against the scripted model server's Converse API: the
 * server root from the contract's `/v1` URL, static test credentials (the SDK signs, the server
 * does not check), HTTP/1.1 (the Bedrock client defaults to HTTP/2) and no SDK retries.
 */
export function scriptedBedrock(modelUrl: string): BedrockModel {
  return new BedrockModel({
    modelId: 'scripted-model',
    region: 'us-east-1',
    clientConfig: {
      endpoint: modelUrl.replace(/\/v1\/?$/, ''),
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    },
  });
}

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
