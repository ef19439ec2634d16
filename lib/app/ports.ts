import type { Reply } from '../core/requests.js';
import type { Decision } from '../core/runner.js';
import type { SessionStore } from '../core/session.js';
import type { PausedRunStore } from '../core/stores.js';
import type { RunInputWire, RunJob } from '../transport/protocol.js';
import type { FairUse } from './fair-use.js';
import type { IdKeySource } from './ids.js';
import type { ConnectionStore, Subscription } from './ports/connections.js';
import type { IdempotencyStore } from './ports/idempotency.js';
import type { RunRecordStore } from './ports/run-records.js';
import type { SessionIndex } from './ports/session-index.js';

/** Where run and resume jobs go (the FIFO run queue on AWS). */
export interface JobQueue {
  send(job: RunJob): Promise<void>;
}

/** The deployed agents: `has` is undefined when this function does not know them (ws-message). */
export interface AgentCatalog {
  has(name: string): boolean | undefined;
  cards(): unknown[];
}

/** Runs a turn here and now (sync HTTP, invoke): the Runtime. */
/** What a streaming turn sent: the seq of the message that carried its terminal event. */
export interface SentSeqs {
  terminal?: number;
}

export interface TurnRunner {
  run(
    agent: string,
    sessionId: string,
    input: RunInputWire,
    options: {
      runId: string;
      principal: string;
      incarnation?: string;
      signal?: AbortSignal;
      sent?: SentSeqs;
    },
  ): Promise<Reply>;
  resume(
    sessionId: string,
    runId: string,
    decisions: readonly Decision[],
    options: { principal: string; signal?: AbortSignal; sent?: SentSeqs },
  ): Promise<Reply>;
  clearSession(
    sessionId: string,
    options: { principal: string },
  ): Promise<{ sessionId: string; cleared: boolean }>;
}

/** What the front door needs; a function passes the parts it has (ws-message runs no turn). */
export interface FrontDoorDeps {
  sessions: Pick<SessionStore, 'load' | 'save'>;
  pausedRuns: Pick<PausedRunStore, 'get'>;
  runs: RunRecordStore;
  agents: AgentCatalog;
  idempotency?: IdempotencyStore;
  connections?: Pick<ConnectionStore, 'subscribe' | 'unsubscribe'>;
  queue?: JobQueue;
  turns?: TurnRunner;
  /** The owner index: each principal's sessions, newest first (`GET /sessions`). */
  sessionIndex?: SessionIndex | undefined;
  /** Principals that may decide any session's paused runs from the approvals queue. */
  approvers?: ReadonlySet<string>;
  /** Fair use per principal (lib/app/fair-use.ts): runs admitted against its quotas. */
  fairUse?: FairUse;
  /** Hides secrets in error text before it is stored (the function's redactor). */
  redact?: (text: string) => string;
  now?: () => number;
  newId?: () => string;
  /** The deployment's id key (ids.ts); without it, a key of this process. */
  idKey?: IdKeySource;
}

export type SubscriptionFormat = Subscription['format'];
