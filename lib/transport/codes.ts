/**
 * Every code a client can see in an `error` message, a `run-error` event or an HTTP error body,
 * with its meaning. docs/protocol.md lists the same table (a unit test keeps the two in step).
 * `transport` codes come from checking a message; `front` codes are the front door's (lib/app)
 * refusals; `runtime` codes are lib/core's (and the function's) and pass through unchanged.
 */
export const ERROR_CODES = {
  // transport: the message was refused before anything ran
  'bad-json': { source: 'transport', meaning: 'The message is not valid JSON.' },
  'invalid-utf8': {
    source: 'transport',
    meaning: 'The message bytes (a binary frame, an HTTP body) are not valid UTF-8.',
  },
  'too-large': {
    source: 'transport',
    meaning: 'The message is larger than the limit (128 KB; a run input at most 96 KB).',
  },
  'too-deep': {
    source: 'transport',
    meaning: 'The message is nested more than 64 levels deep.',
  },
  'forbidden-key': {
    source: 'transport',
    meaning: 'The message holds a `__proto__`, `constructor` or `prototype` key.',
  },
  'unknown-action': {
    source: 'transport',
    meaning: 'The message has no `action`, or one the server does not know.',
  },
  'invalid-message': {
    source: 'transport',
    meaning:
      'The message does not match its strict schema (the message names the field), or is not a JSON object.',
  },
  'internal-error': {
    source: 'transport',
    meaning: 'An unexpected failure on the server; the request may be retried.',
  },
  // front: the front door (lib/app) refused the request; nothing ran
  'not-found': {
    source: 'front',
    meaning:
      "No such session, run or route, or one that is not the caller's: the same answer (HTTP 404).",
  },
  unauthorized: { source: 'front', meaning: 'The request has no valid principal (HTTP 401).' },
  'invalid-cursor': {
    source: 'front',
    meaning:
      'The paging `cursor` is not one this route gave out, or `limit` is not 1-100; nothing was read (HTTP 400).',
  },
  'request-conflict': {
    source: 'front',
    meaning:
      'The `requestId` / `Idempotency-Key` was already used with another payload; nothing ran (HTTP 409).',
  },
  'request-in-progress': {
    source: 'front',
    meaning: 'The first request with that id is still being handled; retry shortly (HTTP 409).',
  },
  'quota-exceeded': {
    source: 'front',
    meaning:
      'The principal is at one of its fair-use limits (connections, runs in flight, runs per minute, tokens per day); nothing ran. `retryAfter` says when to try again (HTTP 429 with `Retry-After`).',
  },
  'invalid-seq': {
    source: 'front',
    meaning:
      'A reconnect seq (`Last-Event-ID`, `lastEventId`, `after`, `afterSeq`) is not a whole number from 0, or is above the last seq the run sent; nothing was read (HTTP 400).',
  },
  'invalid-limit': {
    source: 'front',
    meaning: 'A page size (`limit`) is not a whole number from 1 to 100 (HTTP 400).',
  },
  'run-not-cancelable': {
    source: 'front',
    meaning:
      'The run is not waiting for decisions (it runs elsewhere or has ended): only a paused run can be cancelled (A2A `tasks/cancel`, HTTP 409).',
  },
  // runtime: the request was valid but the run could not start or failed
  'agent-not-found': { source: 'runtime', meaning: 'No agent with that name is deployed.' },
  'invalid-request': { source: 'runtime', meaning: 'The run input was refused by the runtime.' },
  'reserved-run-option': {
    source: 'runtime',
    meaning: 'The run options set a key the runtime reserves for itself.',
  },
  'session-forbidden': {
    source: 'runtime',
    meaning: 'The session belongs to another principal.',
  },
  'session-paused': {
    source: 'runtime',
    meaning: 'The session has a run waiting for decisions: resume it first.',
  },
  'session-busy': {
    source: 'runtime',
    meaning: 'Another turn of the session held it for too long; try again.',
  },
  'session-conflict': {
    source: 'runtime',
    meaning: 'Another turn changed the session meanwhile; this turn was not saved.',
  },
  'session-corrupt': { source: 'runtime', meaning: 'The stored session could not be read.' },
  'paused-run-not-found': {
    source: 'runtime',
    meaning: 'No paused run with that id (never paused, already resumed, or expired).',
  },
  'run-already-resumed': {
    source: 'runtime',
    meaning: 'The paused run is being (or was) resumed by another request.',
  },
  'invalid-decisions': {
    source: 'runtime',
    meaning: 'The decisions do not fit the paused run (unknown, missing or repeated id).',
  },
  'pause-unsupported': {
    source: 'runtime',
    meaning: "The agent's framework cannot pause or resume here.",
  },
  'model-error': { source: 'runtime', meaning: 'The model provider failed.' },
  'model-rate-limited': { source: 'runtime', meaning: 'The model provider rate-limited the run.' },
  'max-turns-exceeded': {
    source: 'runtime',
    meaning: 'The agent took more model turns than allowed.',
  },
  'guardrail-blocked': { source: 'runtime', meaning: 'A guardrail stopped the run.' },
  'run-limit-exceeded': {
    source: 'runtime',
    meaning: 'The run made more tool calls than allowed.',
  },
  'runner-error': { source: 'runtime', meaning: "The agent's framework failed." },
  'unguarded-tool-call': {
    source: 'runtime',
    meaning: 'A durable run called a tool without a call id, so it was refused before it ran.',
  },
  'invalid-runner-event': {
    source: 'runtime',
    meaning: "The agent's runner yielded something that is not a stream event of the run.",
  },
  'hook-error': { source: 'runtime', meaning: 'A hook failed; the turn was not stored.' },
  'hook-type-change': {
    source: 'runtime',
    meaning: 'A stream hook changed an event into another type.',
  },
  'stream-halted': {
    source: 'runtime',
    meaning: 'A hook stopped the stream (a hook may also use its own code).',
  },
  'run-aborted': { source: 'runtime', meaning: 'The run was cancelled.' },
  'invalid-context': { source: 'runtime', meaning: 'The framework context was not JSON.' },
  'missing-dependency': {
    source: 'runtime',
    meaning:
      "A package the feature needs (the agent's framework SDK, an optional AWS SDK client, the OTel SDK) is not installed in the function; the message names it and the npm install command.",
  },
  'model-behavior-error': {
    source: 'runtime',
    meaning: 'The model answered in a way the agent cannot use.',
  },
  'run-timeout': {
    source: 'runtime',
    meaning:
      "The run reached its time limit (HTTP sync: 504, its turn not stored — tool results it recorded are kept for the same request sent again; queued: `run-retrying`, then retried shortly, ending in the run's one terminal event).",
  },
  'events-void': {
    source: 'runtime',
    meaning:
      'In a void marker (`run-retrying` in an `events` message with `from`, at a seq no attempt sent): the seqs `from`…`seq` were possibly sent by an attempt that stopped before storing them, or reserved and never sent; they are void, the run continues at `seq + 1`.',
  },
  'store-throttled': {
    source: 'runtime',
    meaning:
      'The store was throttled after its own retries; nothing was saved, try again shortly (HTTP 503 with `Retry-After`).',
  },
  'model-secret-unavailable': {
    source: 'runtime',
    meaning: 'The function could not read the model key from its secret store.',
  },
  'model-secret-invalid': {
    source: 'runtime',
    meaning: 'The model key in the secret store is empty or not text.',
  },
  'record-corrupt': { source: 'runtime', meaning: 'A stored record could not be read.' },
  'invalid-record': {
    source: 'runtime',
    meaning: 'A record the run produced could not be stored (too large, or not JSON).',
  },
} as const satisfies Record<string, { source: 'transport' | 'front' | 'runtime'; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type TransportErrorCode = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['source'] extends 'transport' ? K : never;
}[ErrorCode];
