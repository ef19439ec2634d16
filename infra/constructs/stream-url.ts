import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import {
  type FunctionUrl,
  FunctionUrlAuthType,
  HttpMethod,
  InvokeMode,
} from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { KernelConfig } from '../config.js';

/** The APIs the playground page talks to (absent when the stack has no such API). */
export interface PlaygroundApis {
  readonly httpUrl?: string | undefined;
  readonly wsUrl?: string | undefined;
}

/**
 * A Function URL rather than API Gateway REST streaming: one resource, no 29 s integration
 * limit, no per-request API charge; its auth is IAM or none, so the function verifies the
 * bearer token itself with the authorizer's code (docs/architecture.md#streaming-http).
 * With `playground=true` the same URL serves the playground page at `/`: no bucket nor
 * distribution to secure, and the page's origin is the stream's, so SSE needs no CORS.
 */
export function streamUrlOf(
  fn: NodejsFunction,
  config: KernelConfig,
  apis: PlaygroundApis = {},
): FunctionUrl {
  const url = fn.addFunctionUrl({
    authType: FunctionUrlAuthType.NONE,
    invokeMode: InvokeMode.RESPONSE_STREAM,
    cors: {
      allowedOrigins: [...config.corsOrigins],
      allowedMethods: [HttpMethod.POST],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'accept'],
      maxAge: Duration.hours(1),
    },
  });
  if (config.playground) servePlayground(fn, url, apis);
  return url;
}

/** The page's files are copied beside the bundle (functions.ts `copyDirs`). */
function servePlayground(fn: NodejsFunction, url: FunctionUrl, apis: PlaygroundApis): void {
  fn.addEnvironment('PLAYGROUND_DIR', '/var/task/playground');
  if (apis.httpUrl) fn.addEnvironment('PLAYGROUND_HTTP_URL', apis.httpUrl);
  if (apis.wsUrl) fn.addEnvironment('PLAYGROUND_WS_URL', apis.wsUrl);
  new CfnOutput(Stack.of(fn), 'PlaygroundUrl', {
    value: url.url,
    description: 'The playground page (a browser; paste a token)',
  });
}
