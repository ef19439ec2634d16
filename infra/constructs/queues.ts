import { Duration, Validations } from 'aws-cdk-lib';
import {
  DeduplicationScope,
  FifoThroughputLimit,
  Queue,
  QueueEncryption,
} from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface KernelQueueProps {
  readonly fifo: boolean;
  /** Above the consumer's timeout, so a message is never redelivered while still being handled. */
  readonly visibilityTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue: at least 5 (AWS's advice for
   * queues Lambda consumes: a throttled or briefly failing consumer must not dead-letter). */
  readonly maxReceiveCount: number;
}

const RETENTION = Duration.days(4);
const DLQ_RETENTION = Duration.days(14);
const MIN_RECEIVES = 5;

/** A queue and its dead-letter queue: SSE, TLS only, FIFO (content-based dedup off) when asked. */
export class KernelQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: KernelQueueProps) {
    super(scope, id);
    if (props.maxReceiveCount < MIN_RECEIVES) {
      throw new Error(
        `maxReceiveCount must be at least ${MIN_RECEIVES} (got ${props.maxReceiveCount})`,
      );
    }
    // CloudFormation names FIFO queues itself (with the .fifo suffix).
    const common = {
      fifo: props.fifo ? true : undefined,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    };
    this.deadLetterQueue = new Queue(this, 'Dlq', {
      ...common,
      retentionPeriod: DLQ_RETENTION,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue: a further one would only move the messages; it is alarmed (DlqNotEmpty) and redriven by hand after a fix.',
    });
    this.queue = new Queue(this, 'Queue', {
      ...common,
      // High-throughput FIFO: dedup ids are unique per group (session) only, which is why they
      // are digests of (principal, session, requestId), and throughput is counted per group.
      ...(props.fifo
        ? {
            deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {}),
      retentionPeriod: RETENTION,
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
