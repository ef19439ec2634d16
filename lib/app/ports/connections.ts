import * as z from 'zod/mini';
import { AgentKernelError } from '../../core/errors.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { SubscriptionFormatSchema } from '../../transport/formats.js';

/**
 * The WebSocket connections and their session subscriptions, as fan-out reads them. Only the
 * distribution has connections, so the port is lib/app's, not lib/core's. lib/stores implements
 * it in memory and in DynamoDB. Times are epoch milliseconds.
 */

export const ConnectionSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    connectionId: z.string().check(z.minLength(1), z.maxLength(256)),
    /** The authenticated principal, when the connection has one. */
    principal: z.optional(z.string()),
    /** Where to post messages (the API Gateway @connections endpoint). */
    endpoint: z.string().check(z.minLength(1)),
    connectedAt: z.number().check(z.int()),
  }),
);
export type Connection = z.infer<typeof ConnectionSchema>;

export { SubscriptionFormatSchema };

export interface Subscription extends Connection {
  sessionId: string;
  format: z.infer<typeof SubscriptionFormatSchema>;
}

export interface ConnectionStore {
  connect(connection: Connection): Promise<void>;
  get(connectionId: string): Promise<(Connection & { sessions: string[] }) | undefined>;
  /** Throws `ConnectionNotFound` when the connection is gone. Subscribing again updates format. */
  subscribe(
    connectionId: string,
    sessionId: string,
    format?: Subscription['format'],
  ): Promise<void>;
  unsubscribe(connectionId: string, sessionId: string): Promise<void>;
  /** Everything fan-out needs to post to each subscriber, without another read. */
  subscribers(sessionId: string): Promise<Subscription[]>;
  /** Removes the connection and all of its subscriptions. */
  disconnect(connectionId: string): Promise<void>;
}

export class ConnectionNotFound extends AgentKernelError {
  constructor(connectionId: string) {
    super('connection-not-found', `No connection "${connectionId}".`);
  }
}
