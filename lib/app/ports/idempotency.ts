import { AgentKernelError } from '../../core/errors.js';

/**
 * The idempotency port `makeIdempotent` (lib/app/idempotent.ts) claims, completes and releases
 * keys in. Only the distribution's fronts need it, so it is lib/app's, not lib/core's.
 */

export interface IdempotencyClaimOptions {
  /** How long the record (and so the stored result) is kept; default the store's TTL. */
  ttlSeconds?: number;
  /** A claim not completed within this time lapses, so a crashed holder does not block. */
  inProgressMs?: number;
  /** Hash of the payload: a key reused with another payload is refused. */
  fingerprint?: string;
}

export type IdempotencyClaim =
  | { outcome: 'claimed'; token: string }
  | { outcome: 'in-progress' }
  | { outcome: 'completed'; result: unknown };

export interface IdempotencyStore {
  claim(key: string, options?: IdempotencyClaimOptions): Promise<IdempotencyClaim>;
  /** Stores the result under a claim; a lapsed claim taken over by another is refused. */
  complete(key: string, token: string, result: unknown): Promise<void>;
  /** Gives the key up after a failure, so a retry may claim it. */
  release(key: string, token: string): Promise<void>;
}

/** An idempotency key claimed again with a different payload. */
export class IdempotencyKeyReused extends AgentKernelError {
  constructor(key: string) {
    super('idempotency-key-reused', `Idempotency key "${key}" was used with another payload.`);
  }
}

/** The claim token no longer holds the key (it lapsed and someone else took it). */
export class IdempotencyClaimLost extends AgentKernelError {
  constructor(key: string) {
    super('idempotency-claim-lost', `The claim on idempotency key "${key}" was lost.`);
  }
}
