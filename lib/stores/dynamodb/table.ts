import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/**
 * The one source of truth for the table's keys: the stores, the CDK stack and the local stack
 * all read it from here. One table, string keys `pk`/`sk`, TTL attribute `expiresAt` (epoch
 * seconds), no GSI: every access is by partition (see docs/architecture.md).
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  billingMode: 'PAY_PER_REQUEST',
  globalSecondaryIndexes: [],
} as const;

/**
 * The prefix of every partition key. Each item family has a partition of its own, so IAM can
 * give a function only the families it uses (`dynamodb:LeadingKeys`, see infra/functions.ts):
 * fan-out reads subscriptions and connections, never a session.
 */
export const PARTITIONS = {
  /** Session head, state chunks, lease, paused runs, run records, ledger, journals, stored events. */
  session: 'SESSION#',
  /** The connections subscribed to one session. */
  subscriptions: 'SUBS#',
  connection: 'CONN#',
  idempotency: 'IDEMPOTENCY#',
  /** One principal's fair-use counters, usage per day and limits override. */
  quota: 'QUOTA#',
} as const;

/** Key builders: every pk/sk string the stores write. */
export const keys = {
  session: (sessionId: string) => `${PARTITIONS.session}${sessionId}`,
  /** Partition of a session's subscriptions: `SUBS#<sessionId>`, items `SUB#<connectionId>`. */
  subscriptions: (sessionId: string) => `${PARTITIONS.subscriptions}${sessionId}`,
  connection: (connectionId: string) => `${PARTITIONS.connection}${connectionId}`,
  idempotency: (key: string) => `${PARTITIONS.idempotency}${key}`,
  quota: (principal: string) => `${PARTITIONS.quota}${principal}`,
  /** In-flight run leases, this minute's run count, today's tokens (one item: one write). */
  quotaRuns: 'RUNS',
  quotaConnections: 'CONNS',
  quotaLimits: 'LIMITS',
  quotaDay: (day: string) => `DAY#${day}`,
  quotaDayPrefix: 'DAY#',
  meta: 'META',
  /**
   * The deployment's id key (id-key-store.ts): in the sessions family (the functions that make
   * ids are the ones that claim sessions), under a pk no session id can have (`!` is outside
   * the id alphabet).
   */
  idKey: { pk: `${PARTITIONS.session}!id-key`, sk: 'META' },
  /**
   * A principal's sessions, newest first (session-index.ts): in the sessions family too (the
   * functions that claim sessions write it), under a pk no session id can have.
   */
  ownerIndex: (principal: string) => `${PARTITIONS.session}!owner#${principal}`,
  /** One session of the owner index: `S#<created, 13 digits>#<sessionId>`, sorted by creation. */
  ownerEntry: (createdAt: number, sessionId: string) =>
    `S#${String(createdAt).padStart(13, '0')}#${sessionId}`,
  ownerEntryPrefix: 'S#',
  /**
   * The pending-approval index (approval-index.ts): every paused run waiting for decisions, and
   * each owner's, in the sessions family (the functions that pause runs write it), under pks no
   * session id can have.
   */
  approvals: (owner?: string) =>
    owner === undefined
      ? `${PARTITIONS.session}!approvals`
      : `${PARTITIONS.session}!approvals#${owner}`,
  /** One paused run of the index: `P#<created, 13 digits>#<sessionId>#<runId>`, oldest first. */
  approvalEntry: (createdAt: number, sessionId: string, runId: string) =>
    `P#${String(createdAt).padStart(13, '0')}#${sessionId}#${runId}`,
  approvalEntryPrefix: 'P#',
  lease: 'LEASE',
  /** State chunks of one generation of a session head: `STATE#<generation>#<chunk>`. */
  stateChunks: (generation: string) => `STATE#${generation}#`,
  /**
   * Turn items of one log generation: `TURN#<generation>#<segment>#<part>`, a segment being
   * `<version, 10 digits>.<random>` (the head version that committed it), so they sort in order.
   */
  turnLog: (generation: string) => `TURN#${generation}#`,
  turnPrefix: 'TURN#',
  paused: (runId: string) => `PAUSED#${runId}`,
  pausedPrefix: 'PAUSED#',
  run: (runId: string) => `RUN#${runId}`,
  ledger: (runId: string, callId: string) => `LEDGER#${runId}#${callId}`,
  ledgerPrefix: (runId?: string) => (runId === undefined ? 'LEDGER#' : `LEDGER#${runId}#`),
  /** A run journal's model response to request `key` (the runner's hash of the request). */
  journalModel: (runId: string, key: string) => `JOURNAL#${runId}#M#${key}`,
  /** A run journal's tool call. */
  journalCall: (runId: string, callId: string) => `JOURNAL#${runId}#T#${callId}`,
  journalPrefix: (runId: string) => `JOURNAL#${runId}#`,
  /** A stored events message of a run: `EVENTS#<runId>#<seq, 16 digits>` (seq order = key order). */
  events: (runId: string, seq: number) => `EVENTS#${runId}#${String(seq).padStart(16, '0')}`,
  eventsPrefix: (runId: string) => `EVENTS#${runId}#`,
  subscription: (connectionId: string) => `SUB#${connectionId}`,
  subscriptionPrefix: 'SUB#',
} as const;

/** CreateTable input for a table named `name` (CDK builds the same shape from TABLE). */
export function tableDefinition(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: TABLE.billingMode,
    AttributeDefinitions: [
      { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
      { AttributeName: TABLE.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
  };
}

/** Creates the table and waits until it is active (tests and the local stack). */
export async function createTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(new CreateTableCommand(tableDefinition(name)));
  for (let i = 0; i < 200; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite has no TTL: the stores treat expired items as absent anyway.
  }
}
