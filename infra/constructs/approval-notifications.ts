import { Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ApprovalNotifications } from '../deploy-config.js';
import { KernelAlarmTopic } from './alarm-topic.js';

export interface ApprovalRequestsPipeProps {
  readonly queue: IQueue;
  readonly destination: ApprovalNotifications;
  /** The HTTP API's base URL, for the decision command in the message. */
  readonly httpUrl?: string;
}

/**
 * The approval-requests queue's consumer for a deployer without a back office: an EventBridge
 * pipe (no function of ours) that publishes each request to an SNS topic (e-mail, chat, HTTPS
 * subscribers), with what waits and how to decide. A publish that keeps failing returns the
 * message to the queue, and after maxReceiveCount to its DLQ (alarmed).
 */
export class ApprovalRequestsPipe extends Construct {
  readonly topic: ITopic;
  readonly pipe: CfnPipe;

  constructor(scope: Construct, id: string, props: ApprovalRequestsPipeProps) {
    super(scope, id);
    const { destination } = props;
    this.topic =
      'topicArn' in destination
        ? Topic.fromTopicArn(this, 'Topic', destination.topicArn)
        : new KernelAlarmTopic(this, 'Requests', {
            emails: destination.emails,
            displayName: 'Agent kernel approval requests',
            // The pipe publishes with its role (same account): no service in the topic policy.
            alarmsPublish: false,
          }).topic;
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com'),
      description: 'Reads approval requests and publishes them to the approvals topic',
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        resources: [props.queue.queueArn],
      }),
    );
    this.topic.grantPublish(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        "On the topic's own key only (grantPublish): SNS asks for whichever data-key variant it needs.",
    });
    const decide = `${props.httpUrl ?? '<HttpUrl>/'}sessions/<$.body.sessionId>/runs/<$.body.runId>/decisions`;
    this.pipe = new CfnPipe(this, 'Pipe', {
      roleArn: role.roleArn,
      source: props.queue.queueArn,
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      target: this.topic.topicArn,
      description: 'Approval requests to people: one SNS message per paused run',
      // Pipes parse a JSON SQS body: <$.body.x> is the request's field (lib/aws/adapters/pause-announcer.ts).
      targetParameters: {
        inputTemplate: [
          'Agent <$.body.agent> waits for a decision.',
          'Session: <$.body.sessionId>  Run: <$.body.runId>  Expires (ms since 1970): <$.body.expiresAt>',
          'What waits: <$.body.interruptions>',
          `Decide as the session's owner: POST ${decide} with {"decisions":[{"id":"<interruption id>","status":"approved"}]} (or "denied"), or put the decision on the ApprovalsQueueUrl queue (docs/operations.md, Approval requests).`,
        ].join('\n'),
      },
    });
    this.pipe.node.addDependency(role);
  }
}
