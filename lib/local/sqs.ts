import type { Server } from 'node:http';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import type { LocalEndpoint } from './dynalite.js';

/** local-aws-sqs (the current SQS JSON protocol) on an ephemeral port of 127.0.0.1. */
export async function startLocalSqs(): Promise<LocalEndpoint> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    // Tests create and drop queues freely; AWS's 60 s wait before re-creating one only slows them.
    emulateQueueCreationLifecycle: false,
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The real SQS client pointed at a local endpoint (any credentials sign). */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

export interface QueueOptions {
  fifo?: boolean;
  /** A dead-letter queue is created with it, receiving a message after this many receives. */
  maxReceiveCount?: number;
}

/** Creates a queue (and its DLQ when asked); answers their URLs. */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  options: QueueOptions = {},
): Promise<{ url: string; dlqUrl?: string }> {
  const suffix = options.fifo ? '.fifo' : '';
  const fifo: Record<string, string> = options.fifo ? { FifoQueue: 'true' } : {};
  let dlqUrl: string | undefined;
  const attributes: Record<string, string> = { ...fifo, VisibilityTimeout: '30' };
  if (options.maxReceiveCount !== undefined) {
    const dlq = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-dlq${suffix}`, Attributes: fifo }),
    );
    dlqUrl = dlq.QueueUrl;
    const arn = `arn:aws:sqs:us-east-1:123456789012:${name}-dlq${suffix}`;
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: arn,
      maxReceiveCount: options.maxReceiveCount,
    });
  }
  const queue = await sqs.send(
    new CreateQueueCommand({ QueueName: `${name}${suffix}`, Attributes: attributes }),
  );
  return { url: queue.QueueUrl as string, ...(dlqUrl ? { dlqUrl } : {}) };
}

export {
  drain,
  newPollState,
  type Poller,
  type PollResult,
  type PollState,
  pollOnce,
  type RetryDelay,
  release,
  type SqsHandler,
  startPoller,
} from './sqs-poller.js';
