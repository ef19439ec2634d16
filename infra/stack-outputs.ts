import { CfnOutput, type Stack } from 'aws-cdk-lib';
import type { FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { KernelConfig } from './config.js';
import type { ApprovalRequestsPipe } from './constructs/approval-notifications.js';
import type { KernelHttpApi } from './constructs/http-api.js';
import type { KernelFunction } from './constructs/kernel-function.js';
import type { KernelMonitoring } from './constructs/monitoring.js';
import type { KernelQueue } from './constructs/queues.js';
import type { KernelTable } from './constructs/table.js';
import type { KernelWebSocketApi } from './constructs/websocket-api.js';

/** What the outputs read of the stack (infra/stack.ts), without importing it (no circle). */
export interface OutputSources extends Stack {
  readonly table: KernelTable;
  readonly queues: Readonly<Record<string, KernelQueue>>;
  readonly functions: ReadonlyMap<string, KernelFunction>;
  readonly webSocket?: KernelWebSocketApi | undefined;
  readonly http?: KernelHttpApi | undefined;
  readonly streamUrl?: FunctionUrl | undefined;
  readonly alarmTopic?: ITopic | undefined;
  readonly approvalRequests?: ApprovalRequestsPipe | undefined;
  readonly config: KernelConfig;
}

/** The stack's outputs: what clients, `npm run deploy`'s next steps and operators read. */
export function stackOutputs(stack: OutputSources, monitoring: KernelMonitoring): void {
  const out = (id: string, value: string, description: string) =>
    new CfnOutput(stack, id, { value, description });
  out('TableName', stack.table.table.tableName, 'DynamoDB table of sessions and runs');
  for (const [name, q] of Object.entries(stack.queues)) {
    out(`${name[0]!.toUpperCase()}${name.slice(1)}QueueUrl`, q.queue.queueUrl, `${name} queue`);
  }
  if (stack.webSocket) out('WebSocketUrl', stack.webSocket.stage.url, 'wss:// URL for clients');
  if (stack.http) out('HttpUrl', stack.http.url, 'HTTP API base URL');
  if (stack.streamUrl) out('StreamUrl', stack.streamUrl.url, 'Streaming runs (SSE) URL');
  const invoke = stack.functions.get('invoke');
  if (invoke) out('InvokeFunctionName', invoke.function.functionName, 'Direct invoke target');
  out('DashboardName', monitoring.dashboard.dashboardName, 'CloudWatch dashboard');
  // For the deploy's next steps (infra/next-steps.ts): how clients get a token.
  out('AuthMode', stack.config.auth.mode, 'hs256 (development secret) or jwks');
  if (stack.config.auth.mode === 'hs256') {
    out('JwtSecretName', stack.config.auth.secretName, 'Secrets Manager secret (name only)');
  }
  if (stack.alarmTopic) out('AlarmTopicArn', stack.alarmTopic.topicArn, 'Alarm notifications');
  const model = stack.config.modelSecret;
  if (model) {
    const name = 'secretName' in model ? model.secretName : model.parameterName;
    out('ModelSecretName', name, 'Model API key: Secrets Manager secret or SSM parameter (name)');
  }
  if (stack.approvalRequests) {
    out('ApprovalTopicArn', stack.approvalRequests.topic.topicArn, 'Approval requests (SNS)');
  }
}
