import { Duration } from 'aws-cdk-lib';
import {
  type FunctionUrl,
  FunctionUrlAuthType,
  HttpMethod,
  InvokeMode,
} from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { KernelConfig } from '../config.js';

/**
 * A Function URL rather than API Gateway REST streaming: one resource, no 29 s integration
 * limit, no per-request API charge; its auth is IAM or none, so the function verifies the
 * bearer token itself with the authorizer's code (docs/architecture.md#streaming-http).
 */
export function streamUrlOf(fn: NodejsFunction, config: KernelConfig): FunctionUrl {
  return fn.addFunctionUrl({
    authType: FunctionUrlAuthType.NONE,
    invokeMode: InvokeMode.RESPONSE_STREAM,
    cors: {
      allowedOrigins: [...config.corsOrigins],
      allowedMethods: [HttpMethod.POST],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'accept'],
      maxAge: Duration.hours(1),
    },
  });
}
