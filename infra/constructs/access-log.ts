import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type IAccessLogSettings, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** Variables valid for HTTP and WebSocket APIs alike. */
const FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTimeEpoch',
  routeKey: '$context.routeKey',
  status: '$context.status',
  sourceIp: '$context.identity.sourceIp',
  principal: '$context.authorizer.principalId',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
};

/** One JSON line per request into a log group of its own. */
export function accessLogs(
  scope: Construct,
  id: string,
  extra: Record<string, string>,
  retention: RetentionDays,
  removalPolicy: RemovalPolicy,
): { logGroup: LogGroup; settings: IAccessLogSettings } {
  const logGroup = new LogGroup(scope, id, { retention, removalPolicy });
  return {
    logGroup,
    settings: {
      destination: new LogGroupLogDestination(logGroup),
      format: AccessLogFormat.custom(JSON.stringify({ ...FIELDS, ...extra })),
    },
  };
}
