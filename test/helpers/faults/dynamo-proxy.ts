import { createServer, request, type Server } from 'node:http';

/** One DynamoDB request as the proxy sees it: the operation and the raw JSON body. */
export interface DynamoRequest {
  /** `PutItem`, `UpdateItem`, `GetItem`, … (from `X-Amz-Target`). */
  operation: string;
  body: string;
}

/** Answers true for a request that should be throttled. */
export type ThrottleRule = (req: DynamoRequest) => boolean;

export interface DynamoProxy {
  /** Point a DynamoDB client here instead of at the emulator. */
  readonly url: string;
  /** Every request, in arrival order, with whether it was throttled. */
  readonly log: (DynamoRequest & { throttled: boolean })[];
  /** Replaces the rule (undefined: nothing is throttled). */
  setRule(rule: ThrottleRule | undefined): void;
  /**
   * Holds the requests `rule` picks: they get no answer until `dropHeld` (their connection is
   * then cut, as if the caller died while waiting). Resolves `held` with the first one: the
   * moment to SIGKILL a worker process at an exact point of its work.
   */
  hold(rule: ThrottleRule | undefined): void;
  /** The first held request since `hold`. */
  readonly held: Promise<DynamoRequest>;
  dropHeld(): void;
  close(): Promise<void>;
}

/**
 * A small HTTP proxy in front of dynalite / DynamoDB Local that answers chosen requests as a
 * throttled table does: HTTP 400 `ProvisionedThroughputExceededException`. The SDK retries those
 * with its own backoff and, once its attempts are spent, throws: exactly what a long throttle
 * does to a Lambda on AWS. Everything else is passed through untouched.
 */
export async function startDynamoProxy(target: string): Promise<DynamoProxy> {
  const upstream = new URL(target);
  const log: DynamoProxy['log'] = [];
  let rule: ThrottleRule | undefined;
  let holdRule: ThrottleRule | undefined;
  let heldOne: (req: DynamoRequest) => void = () => undefined;
  let held = new Promise<DynamoRequest>((resolve) => {
    heldOne = resolve;
  });
  const holding: { destroy(): void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.slice(target.indexOf('.') + 1);
      const entry = { operation, body: body.toString('utf8') };
      if (holdRule?.(entry)) {
        holding.push(res);
        heldOne(entry);
        return;
      }
      const throttled = rule?.(entry) ?? false;
      log.push({ ...entry, throttled });
      if (throttled) {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
            message: 'The level of configured provisioned throughput for the table was exceeded.',
          }),
        );
        return;
      }
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    setRule: (next) => {
      rule = next;
    },
    hold: (next) => {
      holdRule = next;
      held = new Promise((resolve) => {
        heldOne = resolve;
      });
    },
    get held() {
      return held;
    },
    dropHeld: () => {
      for (const res of holding.splice(0)) res.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Attempts the DynamoDB client makes by default for a throttled call (measured: 4). */
export const SDK_ATTEMPTS = 4;

/**
 * A rule that throttles the next `times` requests matching `match` (default `SDK_ATTEMPTS`: the
 * SDK's every attempt, so the call fails), then lets them through.
 */
export function throttleNext(match: ThrottleRule, times = SDK_ATTEMPTS): ThrottleRule {
  let left = times;
  return (req) => {
    if (left <= 0 || !match(req)) return false;
    left--;
    return true;
  };
}

/** A rule that throttles each request with probability `p`, from a seeded generator. */
export function throttleRandomly(p: number, seed = 1): ThrottleRule {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32: the same seed throttles the same requests, run after run.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32 < p;
  };
}

/** The session head's write: a turn is stored once it passed. */
export function isSessionSave(req: DynamoRequest): boolean {
  return (
    req.operation === 'PutItem' &&
    req.body.includes('"SESSION#') &&
    req.body.includes('"S":"META"') &&
    // The deployment's id key shares the sessions family (keys.idKey), but is no session.
    !req.body.includes('"SESSION#!id-key"')
  );
}

/** `rule`, applied only to the requests after the first session save that passed. */
export function afterSessionSave(rule: ThrottleRule): ThrottleRule {
  let saved = false;
  return (req) => {
    if (saved) return rule(req);
    if (isSessionSave(req)) saved = true;
    return false;
  };
}
