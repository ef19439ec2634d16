import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface KernelAlarmTopicProps {
  /** Addresses subscribed by email (each confirms the subscription AWS mails it). */
  readonly emails: readonly string[];
  /** Default "Agent kernel alarms". */
  readonly displayName?: string;
  /** Default true: CloudWatch alarms of this account may publish (key and topic policies). */
  readonly alarmsPublish?: boolean;
}

/**
 * The SNS topic the alarms notify: encrypted with a key of its own (CloudWatch cannot publish to
 * a topic under the AWS managed `aws/sns` key), TLS only, and publishable by CloudWatch alarms of
 * this account and region alone (aws:SourceAccount and aws:SourceArn, against a confused deputy).
 */
export class KernelAlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: KernelAlarmTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const cloudwatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    this.key = new Key(this, 'Key', {
      description: props.displayName
        ? `Encrypts the topic "${props.displayName}"`
        : 'Encrypts the agent kernel alarm topic',
      enableKeyRotation: true,
      // Only this topic uses it; a retained key would bill monthly for nothing.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const alarms = props.alarmsPublish ?? true;
    if (alarms)
      this.key.addToResourcePolicy(
        new PolicyStatement({
          sid: 'CloudWatchAlarmsPublishToTheTopic',
          principals: [cloudwatch],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'],
          conditions: fromOurAlarms,
        }),
      );
    this.topic = new Topic(this, 'Topic', {
      displayName: props.displayName ?? 'Agent kernel alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
    // A topic policy (enforceSSL makes one) replaces the default: CloudWatch must be named.
    if (alarms)
      this.topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'CloudWatchAlarmsPublish',
          principals: [cloudwatch],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: fromOurAlarms,
        }),
      );
    for (const email of props.emails) {
      const subscription = this.topic.addSubscription(new EmailSubscription(email));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'An e-mail subscription of alarm notifications: SNS retries e-mail delivery itself, and a dead-letter queue of undelivered alarms would need an alarm of its own that notifies... the same topic.',
      });
    }
  }
}
