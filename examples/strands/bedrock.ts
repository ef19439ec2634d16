import { NodeHttpHandler } from '@smithy/node-http-handler';
import { BedrockModel } from '@strands-agents/sdk';

/**
 * Strands' default provider, Bedrock, pointed at a Converse-compatible endpoint such as the
 * scripted model server (`startScriptedModelServer()`; its `url` ends in `/v1`, the root is
 * taken). Static credentials (the SDK signs each request, the stand-in does not check), HTTP/1.1
 * (the Bedrock client defaults to HTTP/2, which the stand-in does not speak) and no SDK retries
 * (a failed turn is the caller's to retry).
 */
export function offlineBedrock(url: string, modelId = 'scripted-model'): BedrockModel {
  return new BedrockModel({
    modelId,
    region: 'us-east-1',
    clientConfig: {
      endpoint: url.replace(/\/v1\/?$/, ''),
      credentials: { accessKeyId: 'AKIDOFFLINE', secretAccessKey: 'offline' },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    },
  });
}
