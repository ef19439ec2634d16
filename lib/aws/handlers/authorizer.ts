import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { isPrincipal } from '../../transport/ids.js';
import { emitCount } from '../adapters/emf-count.js';
import { readSecretText } from '../adapters/secrets-manager.js';
import type { Config } from '../wiring/config.js';
import { ConfigError } from '../wiring/errors.js';

type AuthConfig = Pick<
  Config,
  | 'AUTH_MODE'
  | 'JWT_SECRET'
  | 'JWT_SECRET_NAME'
  | 'JWKS_URL'
  | 'JWT_ISSUER'
  | 'JWT_AUDIENCE'
  | 'AWS_REGION'
  | 'SECRETS_MANAGER_ENDPOINT'
  | 'SSM_ENDPOINT'
>;

/** Who was refused: counted as `AuthorizerRejections`, never as a Lambda error. */
const REJECTED = 'rejected';

/**
 * The WebSocket `$connect` REQUEST authorizer, and the HTTP API's Lambda authorizer (hs256 mode).
 * Where the token comes from (`tokenOf`): the `Authorization: Bearer` header, always first; the
 * `token` query parameter only on a WebSocket handshake, where a browser cannot set a header.
 * Every token must carry `exp` (in every mode), and `iss` / `aud` must match JWT_ISSUER /
 * JWT_AUDIENCE when they are configured. HS256 with a shared secret in development (read from Secrets Manager
 * at cold start when only its name is set), an OIDC issuer's JWKS in production. Answers an IAM
 * policy whose principalId is the token's `sub`. A refused token gets a Deny policy (API
 * Gateway's 403) rather than a thrown `Unauthorized`: a throw would be a Lambda error, and the
 * error alarm would fire on ordinary rejections. A request without a token never reaches us
 * (API Gateway answers 401 when the identity source is missing).
 */
export function createAuthorizerHandler(config: AuthConfig, logger?: Logger) {
  const verify = verifierFor(config);
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const token = tokenOf(event);
    let principal: string | undefined;
    if (config.AUTH_MODE === 'none') principal = 'anonymous';
    else if (token) principal = await verify(token);
    // A sub the front door or the worker would refuse (empty, too long, control characters)
    // is refused here, where the client hears it, rather than dead-lettering a job later.
    if (!isPrincipal(principal)) {
      countRejection(logger, token !== undefined);
      return policy(REJECTED, 'Deny', event.methodArn);
    }
    // The fronts read `context`: WebSocket events flatten it next to principalId; an HTTP API v2
    // event carries it (and not principalId) under requestContext.authorizer.lambda.
    return { ...policy(principal, 'Allow', event.methodArn), context: { principal } };
  };
}

function policy(
  principalId: string,
  effect: 'Allow' | 'Deny',
  resource: string,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
    },
  };
}

/** One EMF line per rejection (namespace AgentKernel, no dimension): the stack alarms on it. */
function countRejection(logger: Logger | undefined, hasToken: boolean): void {
  emitCount(logger, {
    name: 'AuthorizerRejections',
    message: 'connection refused',
    level: 'info',
    properties: { hasToken },
  });
}

/** Resolves to the token's subject, or undefined (bad signature, expired, wrong issuer...). */
function verifierFor(config: AuthConfig): (token: string) => Promise<string | undefined> {
  if (config.AUTH_MODE === 'none') return async () => undefined;
  const options = {
    // A token that never expires is a key forever: refused in every mode.
    requiredClaims: ['exp'],
    ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
    ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
  };
  const key = keyOf(config);
  const algorithms = config.AUTH_MODE === 'hs256' ? ['HS256'] : ['RS256', 'ES256', 'PS256'];
  return async (token) => {
    // A key that cannot be read is an error (the function's, alarmed), not a rejection.
    const resolved = await key();
    try {
      const { payload } =
        typeof resolved === 'function'
          ? await jwtVerify(token, resolved, { ...options, algorithms })
          : await jwtVerify(token, resolved, { ...options, algorithms });
      return typeof payload.sub === 'string' ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  };
}

type Key = Uint8Array | JWTVerifyGetKey;

/** The verification key, once per cold start; a failed secret read is tried again next time. */
function keyOf(config: AuthConfig): () => Promise<Key> {
  if (config.AUTH_MODE === 'jwks') {
    if (!config.JWKS_URL) throw new ConfigError([{ variable: 'JWKS_URL', message: 'is required' }]);
    // Fetched on first use and cached across invocations of the warm instance.
    const jwks = createRemoteJWKSet(new URL(config.JWKS_URL));
    return async () => jwks;
  }
  const encode = (secret: string) => new TextEncoder().encode(secret);
  if (config.JWT_SECRET) {
    const key = encode(config.JWT_SECRET);
    return async () => key;
  }
  const name = config.JWT_SECRET_NAME;
  if (!name) throw new ConfigError([{ variable: 'JWT_SECRET', message: 'is required' }]);
  let pending: Promise<Key> | undefined;
  return () => {
    pending ??= readSecretText(
      { kind: 'secrets-manager', name },
      config,
      (_code, message) => new ConfigError([{ variable: 'JWT_SECRET_NAME', message }]),
      'HS256 secret',
    ).then(
      (text) => {
        // The same floor as JWT_SECRET: a short HS256 secret is guessable.
        if (text.trim().length < 16) {
          throw new ConfigError([
            { variable: 'JWT_SECRET_NAME', message: 'holds under 16 characters' },
          ]);
        }
        return encode(text.trim());
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}

/**
 * The one rule for where a token comes from: the `Authorization: Bearer` header wins; the
 * `token` query parameter counts only on a WebSocket `$connect` (browsers cannot set headers
 * there), never on an HTTP route, where a token in the URL would end up in logs and history.
 */
export function tokenOf(event: APIGatewayRequestAuthorizerEvent): string | undefined {
  const headers = event.headers ?? {};
  const header = headers.Authorization ?? headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (match?.[1]) return match[1];
  if (!isWebSocketConnect(event)) return undefined;
  return event.queryStringParameters?.token || undefined;
}

function isWebSocketConnect(event: APIGatewayRequestAuthorizerEvent): boolean {
  const context = event.requestContext as { eventType?: string; routeKey?: string } | undefined;
  return context?.eventType === 'CONNECT' || context?.routeKey === '$connect';
}
