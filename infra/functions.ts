import { Duration } from 'aws-cdk-lib';
import { PARTITIONS } from '../lib/stores/dynamodb/table.js';
import { AGENT_MEMORY_MB, SMALL_MEMORY_MB } from './config-memory.js';

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
  'stream',
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export type QueueName = 'run' | 'events' | 'approvals' | 'approvalRequests';

/** What a function may touch; the stack turns each into `grant*` calls and environment. */
export type Access =
  | 'runs-agents' // model secret, Bedrock models, TTLs
  | 'send-run' // RUN_QUEUE_URL
  | 'send-events' // EVENTS_QUEUE_URL (sqs-fanout delivery)
  | 'send-approval-requests' // APPROVAL_REQUESTS_QUEUE_URL
  | 'post-to-session' // WEBSOCKET_ENDPOINT, execute-api:ManageConnections on the stage
  | 'deliver' // sqs-fanout: send-events; direct: post-to-session
  | 'verify-tokens' // AUTH_MODE and the JWT settings
  | 'names-agents' // AGENT_NAMES (ws-message refuses an unknown agent without loading any)
  | 'meters'; // QUOTAS and QUOTA_*: fair use per principal, the QUOTA# items (when on)

/**
 * The DynamoDB actions the stores issue (lib/stores/dynamodb). Never Scan: the table grants are
 * conditioned on `ForAllValues:StringLike dynamodb:LeadingKeys`, which a request without a
 * partition key (Scan) would pass vacuously. No BatchGetItem, no transactions either.
 */
export type DynamoAction =
  | 'GetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem';

/** Item families, each in partitions of its own (lib/stores/dynamodb/table.ts, PARTITIONS). */
export type ItemFamily = 'sessions' | 'connections' | 'subscriptions' | 'idempotency' | 'quotas';

/** The partition-key prefixes of each family: the `dynamodb:LeadingKeys` a grant allows. */
export const FAMILY_PARTITIONS: Record<ItemFamily, readonly string[]> = {
  // Head, state chunks, lease, paused runs, run records, ledger.
  sessions: [PARTITIONS.session],
  connections: [PARTITIONS.connection],
  // The subscribers of a session: a partition of its own, not the session's.
  subscriptions: [PARTITIONS.subscriptions],
  idempotency: [PARTITIONS.idempotency],
  // A principal's fair-use counters, usage per day and override.
  quotas: [PARTITIONS.quota],
};

/** Per family, the actions a function's code issues; a family left out is not reachable. */
export type TableAccess = Partial<Record<ItemFamily, readonly DynamoAction[]>>;

/**
 * The front door without a Runtime (lib/app): SessionStore.load (GetItem, Query for chunks),
 * PausedRunStore.get, RunRecordStore.get; the owner fixed on first accept (a create-only put of
 * an empty session) and the queued run record (PutItem).
 */
const FRONT_DOOR_SESSIONS: readonly DynamoAction[] = ['GetItem', 'Query', 'PutItem'];
/**
 * A turn: session load and versioned save (chunks written, replaced ones batch-deleted), the
 * lease (put, renew by update, delete), paused runs (put, claim by update, delete), run records,
 * run journals (conditional put, update, Query, GetItem after a lost start: no new action).
 */
const RUN_SESSIONS: readonly DynamoAction[] = [
  'GetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
];
/** IdempotencyStore: claim (conditional put, then a read), complete (update), release (delete). */
const IDEMPOTENCY: readonly DynamoAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
/**
 * Posting to a session's connections (lib/aws/adapters/post-to-session.ts): the subscribers (Query), the requester's
 * connection (GetItem), and a gone connection's removal (DeleteItem of the connection with
 * ALL_OLD, BatchWriteItem deleting its subscriptions). Fan-out, and the worker in `direct` mode.
 */
export const POST_TO_SUBSCRIBERS: TableAccess = {
  connections: ['GetItem', 'DeleteItem'],
  subscriptions: ['Query', 'BatchWriteItem'],
};

/**
 * QuotaStore (lib/stores/dynamodb/quota-store.ts): admission and ends are conditional updates,
 * a refusal reads the counters (and the override is read), a principal's first run or
 * connection creates them (conditional put). Granted only while fair use is on.
 */
const QUOTAS: readonly DynamoAction[] = ['GetItem', 'PutItem', 'UpdateItem'];

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
  /** Table items it may touch (TABLE_NAME and the TTLs come with it); absent: no table access. */
  readonly table?: TableAccess;
  readonly trigger?: SqsTrigger;
  /** Which API route(s) call it; the API constructs wire them. */
  readonly route?:
    | 'http'
    | '$connect'
    | '$disconnect'
    | '$default'
    | 'ws-authorizer'
    | 'function-url';
  /** Only deployed in this delivery mode. */
  readonly deliveryMode?: 'sqs-fanout' | 'direct';
  /** Project folders copied beside the bundle (files it reads at run time). */
  readonly copyDirs?: readonly string[];
}

const AGENT_MEMORY = AGENT_MEMORY_MB;
const SMALL_MEMORY = SMALL_MEMORY_MB;

/** The function table: name → entry → access (environment and grants) → trigger. */
export const FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'invoke',
    description: 'Direct Lambda invoke: run or resume, answered with the reply',
    timeout: Duration.minutes(5),
    memorySize: AGENT_MEMORY,
    access: ['runs-agents', 'meters'],
    // Turns, and requestIds made idempotent.
    table: { sessions: RUN_SESSIONS, idempotency: IDEMPOTENCY, quotas: QUOTAS },
  },
  {
    name: 'http',
    description: 'HTTP API: runs (sync or async), decisions, run status, sessions, agents, health',
    // API Gateway ends an HTTP integration at 30 s; synchronous runs stop at 25 s.
    timeout: Duration.seconds(29),
    memorySize: AGENT_MEMORY,
    // send-run: asynchronous POST /runs become run jobs.
    access: ['runs-agents', 'send-run', 'meters'],
    // Sync runs, decisions, run records; an Idempotency-Key is claimed by the front door
    // (a conflicting reuse is refused at once), sync runs included. GET /usage queries the days.
    table: { sessions: RUN_SESSIONS, idempotency: IDEMPOTENCY, quotas: [...QUOTAS, 'Query'] },
    route: 'http',
  },
  {
    name: 'worker',
    description: 'Runs run and resume jobs from the run queue, streaming events to subscribers',
    timeout: Duration.minutes(15),
    memorySize: AGENT_MEMORY,
    // deliver: sqs-fanout → send to the events queue; direct → post (and POST_TO_SUBSCRIBERS).
    access: ['runs-agents', 'deliver', 'send-approval-requests', 'meters'],
    // quotas: each attempt's tokens, the run's lease released at its end (updates).
    table: { sessions: RUN_SESSIONS, idempotency: IDEMPOTENCY, quotas: ['UpdateItem'] },
    // One turn per invocation: a long turn never holds back the messages batched with it.
    trigger: { queue: 'run', batchSize: 1, maxConcurrency: 50 },
  },
  {
    name: 'fanout',
    description: 'Posts event batches to every connection subscribed to their session',
    timeout: Duration.seconds(30),
    memorySize: SMALL_MEMORY,
    access: ['post-to-session'],
    // Subscribers and connections only: no session, run or paused-run item.
    table: POST_TO_SUBSCRIBERS,
    trigger: { queue: 'events', batchSize: 10, maxConcurrency: 20 },
    deliveryMode: 'sqs-fanout',
  },
  {
    name: 'approvals',
    description: 'Validates approval decisions and turns them into resume jobs',
    timeout: Duration.seconds(30),
    memorySize: SMALL_MEMORY,
    access: ['send-run'],
    // The front door: owner check, the paused run's agent, a run record for a run without
    // one, the requestId claimed; the worker does the resume.
    table: { sessions: FRONT_DOOR_SESSIONS, idempotency: IDEMPOTENCY },
    trigger: { queue: 'approvals', batchSize: 10, maxConcurrency: 5 },
  },
  {
    name: 'ws-connect',
    description: 'WebSocket $connect: records the authorised connection',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    access: ['meters'],
    // ConnectionStore.connect: one put of CONN#<id>; the principal's connection lease.
    table: { connections: ['PutItem'], quotas: QUOTAS },
    route: '$connect',
  },
  {
    name: 'ws-disconnect',
    description: 'WebSocket $disconnect: removes the connection and its subscriptions',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    access: ['meters'],
    // ConnectionStore.disconnect: delete CONN#<id> (ALL_OLD), batch-delete its SUB# items.
    // The connection's lease dropped (an update of QUOTA#<principal>/CONNS).
    table: {
      connections: ['DeleteItem'],
      subscriptions: ['BatchWriteItem'],
      quotas: ['UpdateItem'],
    },
    route: '$disconnect',
  },
  {
    name: 'ws-message',
    description: 'WebSocket messages: run, resume, subscribe, unsubscribe',
    timeout: Duration.seconds(10),
    memorySize: SMALL_MEMORY,
    // Runs no agent: run and resume become jobs; replies are posted to the caller.
    access: ['send-run', 'post-to-session', 'names-agents', 'meters'],
    table: {
      // The front door: the owner fixed on first accept, the paused run of a resume, the
      // queued run record; requestIds claimed (a conflicting reuse is refused at once).
      sessions: FRONT_DOOR_SESSIONS,
      idempotency: IDEMPOTENCY,
      // subscribe (update CONN#, put SUB#), unsubscribe (delete SUB#, update CONN#), and the
      // caller's removal when a reply finds it gone (delete CONN#, batch-delete its SUB#s).
      connections: ['UpdateItem', 'DeleteItem'],
      subscriptions: ['PutItem', 'DeleteItem', 'BatchWriteItem'],
      // Runs admitted against the principal's quotas.
      quotas: QUOTAS,
    },
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
  {
    name: 'stream',
    description:
      'Function URL (response streaming): POST /runs as SSE, the turn run in the request',
    // Response streaming may last the whole invocation (API Gateway's 30 s does not apply).
    timeout: Duration.minutes(15),
    memorySize: AGENT_MEMORY,
    // A Function URL has no authorizer: the function verifies the bearer token itself.
    access: ['runs-agents', 'verify-tokens', 'meters'],
    table: { sessions: RUN_SESSIONS, idempotency: IDEMPOTENCY, quotas: QUOTAS },
    route: 'function-url',
    // The playground page it serves with `playground=true` (lib/aws/handlers/stream-playground.ts).
    copyDirs: ['lib/playground'],
  },
];

/** The consumer of a queue, for its visibility timeout even before the function exists. */
export function consumerOf(
  queue: QueueName,
  specs: readonly FunctionSpec[] = FUNCTIONS,
): FunctionSpec | undefined {
  return specs.find((spec) => spec.trigger?.queue === queue);
}

/** The settings the context may change (validated in config.ts against AWS's limits). */
export interface FunctionTuning {
  readonly agentMemoryMb: number;
  readonly workerMemoryMb: number;
  readonly workerTimeoutSeconds: number;
  readonly workerMaxConcurrency: number;
  readonly fanoutBatchSize: number;
  /** Sized for the account's concurrency (infra/deploy-config.ts) unless given. */
  readonly fanoutMaxConcurrency: number;
  readonly approvalsMaxConcurrency: number;
}

/** The function table with the context's memory, timeout, concurrency and batch size applied. */
export function tunedFunctions(tuning: FunctionTuning): FunctionSpec[] {
  return FUNCTIONS.map((spec) => {
    const memorySize = spec.memorySize === AGENT_MEMORY ? tuning.agentMemoryMb : spec.memorySize;
    if (spec.name === 'worker' && spec.trigger) {
      return {
        ...spec,
        memorySize: tuning.workerMemoryMb,
        timeout: Duration.seconds(tuning.workerTimeoutSeconds),
        trigger: { ...spec.trigger, maxConcurrency: tuning.workerMaxConcurrency },
      };
    }
    if (spec.name === 'fanout' && spec.trigger) {
      const trigger = {
        ...spec.trigger,
        batchSize: tuning.fanoutBatchSize,
        maxConcurrency: tuning.fanoutMaxConcurrency,
      };
      return { ...spec, trigger };
    }
    if (spec.name === 'approvals' && spec.trigger) {
      return {
        ...spec,
        memorySize,
        trigger: { ...spec.trigger, maxConcurrency: tuning.approvalsMaxConcurrency },
      };
    }
    return { ...spec, memorySize };
  });
}
