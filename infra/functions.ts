import { Duration } from 'aws-cdk-lib';

/** Every Lambda function of the kernel; each has its entry file `functions/<name>.ts`. */
export const FUNCTION_NAMES = [
  'invoke',
  'http',
  'worker',
  'fanout',
  'approvals',
  'ws-connect',
  'ws-disconnect',
  'ws-message',
  'authorizer',
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export type QueueName = 'run' | 'events' | 'approvals' | 'approvalRequests';

/** What a function may touch; the stack turns each into `grant*` calls and environment. */
export type Access =
  | 'table' // TABLE_NAME, read/write items
  | 'runs-agents' // model secret, Bedrock models, TTLs
  | 'send-run' // RUN_QUEUE_URL
  | 'send-events' // EVENTS_QUEUE_URL (sqs-fanout delivery)
  | 'send-approval-requests' // APPROVAL_REQUESTS_QUEUE_URL
  | 'post-to-connections' // WEBSOCKET_ENDPOINT, execute-api:ManageConnections on the stage
  | 'deliver' // sqs-fanout: send-events; direct: post-to-connections
  | 'verify-tokens'; // AUTH_MODE and the JWT settings

export interface SqsTrigger {
  readonly queue: Exclude<QueueName, 'approvalRequests'>;
  readonly batchSize: number;
  /** Lambda's cap on concurrent invocations for this event source (2..1000). */
  readonly maxConcurrency: number;
}

export interface FunctionSpec {
  readonly name: FunctionName;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly access: readonly Access[];
  readonly trigger?: SqsTrigger;
  /** Which API route(s) call it; the API constructs wire them. */
  readonly route?: 'http' | '$connect' | '$disconnect' | '$default' | 'ws-authorizer';
  /** Only deployed in this delivery mode. */
  readonly deliveryMode?: 'sqs-fanout' | 'direct';
}

const AGENT_MEMORY = 1024;
const SMALL_MEMORY = 256;

/** The function table: name → entry → access (environment and grants) → trigger. */
export const FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'invoke',
    description: 'Direct Lambda invoke: run or resume, answered with the reply',
    timeout: Duration.minutes(5),
    memorySize: AGENT_MEMORY,
    access: ['table', 'runs-agents'],
  },
  {
    name: 'http',
    description: 'HTTP API: runs (sync or async), decisions, run status, sessions, agents, health',
    // API Gateway ends an HTTP integration at 30 s; synchronous runs stop at 25 s.
    timeout: Duration.seconds(29),
    memorySize: AGENT_MEMORY,
    // send-run: asynchronous POST /runs become run jobs.
    access: ['table', 'runs-agents', 'send-run'],
    route: 'http',
  },
  {
    name: 'worker',
    description: 'Runs run and resume jobs from the run queue, streaming events to subscribers',
    timeout: Duration.minutes(15),
    memorySize: AGENT_MEMORY,
    access: ['table', 'runs-agents', 'deliver', 'send-approval-requests'],
    // One turn per invocation: a long turn never holds back the messages batched with it.
    trigger: { queue: 'run', batchSize: 1, maxConcurrency: 50 },
  },
  {
    name: 'fanout',
    description: 'Posts event batches to every connection subscribed to their session',
    timeout: Duration.seconds(30),
    memorySize: SMALL_MEMORY,
    access: ['table', 'post-to-connections'],
    trigger: { queue: 'events', batchSize: 10, maxConcurrency: 20 },
    deliveryMode: 'sqs-fanout',
  },
  {
    name: 'approvals',
    description: 'Validates approval decisions and turns them into resume jobs',
    timeout: Duration.seconds(30),
    memorySize: SMALL_MEMORY,
    access: ['table', 'send-run'],
    trigger: { queue: 'approvals', batchSize: 10, maxConcurrency: 5 },
  },
  {
    name: 'ws-connect',
    description: 'WebSocket $connect: records the authorised connection',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    access: ['table'],
    route: '$connect',
  },
  {
    name: 'ws-disconnect',
    description: 'WebSocket $disconnect: removes the connection and its subscriptions',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    access: ['table'],
    route: '$disconnect',
  },
  {
    name: 'ws-message',
    description: 'WebSocket messages: run, resume, subscribe, unsubscribe',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    access: ['table', 'send-run', 'post-to-connections'],
    route: '$default',
  },
  {
    name: 'authorizer',
    description: 'Verifies the bearer token of WebSocket connects and HTTP requests',
    timeout: Duration.seconds(5),
    memorySize: SMALL_MEMORY,
    access: ['verify-tokens'],
    route: 'ws-authorizer',
  },
];

/** The consumer of a queue, for its visibility timeout even before the function exists. */
export function consumerOf(queue: QueueName): FunctionSpec | undefined {
  return FUNCTIONS.find((spec) => spec.trigger?.queue === queue);
}
