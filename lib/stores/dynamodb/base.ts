import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AgentKernelError } from '../../core/errors.js';

export interface DynamoStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Lifetime of an item after its last write (TTL attribute `expiresAt`); default 7 days. */
  ttlSeconds?: number;
  now?: () => number;
}

export const DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

/** What every DynamoDB store shares: the document client, table name, clock and TTL. */
export class DynamoBase {
  readonly doc: DynamoDBDocumentClient;
  readonly table: string;
  readonly now: () => number;
  readonly ttlSeconds: number;

  constructor(options: DynamoStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    mapStoreErrors(this.doc);
    this.table = options.tableName;
    this.now = options.now ?? Date.now;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  }

  /** Epoch seconds, the unit of the TTL attribute. */
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  expiry(ttlSeconds = this.ttlSeconds): number {
    return this.nowSeconds() + ttlSeconds;
  }

  /** DynamoDB deletes expired items late (or, on dynalite, never): read them as absent. */
  expired(item: Record<string, unknown>): boolean {
    const at = item.expiresAt;
    return typeof at === 'number' && at <= this.nowSeconds();
  }

  /** The items of partition `pk` whose sort key starts with `prefix`, in key order, page by page. */
  async *queryPrefix(
    pk: string,
    prefix: string,
    options: { consistent?: boolean; projection?: string } = {},
  ): AsyncGenerator<Record<string, unknown>> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ...(options.consistent ? { ConsistentRead: true } : {}),
          ...(options.projection ? { ProjectionExpression: options.projection } : {}),
          ExclusiveStartKey: start,
        }),
      );
      yield* page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }

  /** Deletes items best-effort, 25 per request; what fails is left to TTL. */
  async deleteQuietly(items: readonly { pk: string; sk: string }[]): Promise<void> {
    for (let i = 0; i < items.length; i += 25) {
      const batch = items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      try {
        await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: batch } }));
      } catch {
        // Best effort: the items carry expiresAt.
      }
    }
  }
}

export function isConditionFailed(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
}

/** Throttling errors as DynamoDB names them (the table's, the account's, a hot partition's). */
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ThrottlingError',
]);

/**
 * DynamoDB kept throttling after the SDK's own retries: a retryable, coded failure (`store-throttled`)
 * rather than an unknown one, so the run ends with a code a client (and the worker) can retry on.
 */
export class StoreThrottled extends AgentKernelError {
  constructor(operation: string, cause: unknown) {
    super('store-throttled', `The store was throttled (${operation}); try again shortly.`, {
      cause,
    });
  }
}

export function isThrottled(err: unknown): boolean {
  return err instanceof Error && THROTTLED.has(err.name);
}

const MIDDLEWARE = 'agentKernelStoreErrors';

/**
 * Maps errors once the SDK gave up (its retries run in a later step, so this sees only the
 * final failure). Added once per client: every store sharing it shares the mapping.
 */
function mapStoreErrors(doc: DynamoDBDocumentClient): void {
  if (doc.middlewareStack.identify().some((entry) => entry.startsWith(MIDDLEWARE))) return;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (err) {
        if (isThrottled(err)) throw new StoreThrottled(context.commandName ?? 'request', err);
        throw err;
      }
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
}
