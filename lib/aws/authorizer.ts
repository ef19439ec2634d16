import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { isPrincipal } from '../transport/ids.js';
import type { Config } from './config.js';
import { ConfigError } from './errors.js';

type AuthConfig = Pick<
  Config,
  'AUTH_MODE' | 'JWT_SECRET' | 'JWKS_URL' | 'JWT_ISSUER' | 'JWT_AUDIENCE'
>;

/**
 * The WebSocket `$connect` REQUEST authorizer, and the HTTP API's Lambda authorizer (hs256 mode). The JWT comes from the `token` query parameter
 * (browsers cannot set headers on a WebSocket) or the Authorization header; HS256 with a shared
 * secret in development, an OIDC issuer's JWKS in production. Answers an IAM policy whose
 * principalId is the token's `sub`; anything else is `Unauthorized` (API Gateway's 401).
 */
export function createAuthorizerHandler(config: AuthConfig, logger?: Logger) {
  const verify = verifierFor(config);
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const token = tokenOf(event);
    let principal: string | undefined;
    if (config.AUTH_MODE === 'none') principal = 'anonymous';
    else if (token) principal = await verify(token).catch(() => undefined);
    // A sub the front door or the worker would refuse (empty, too long, control characters)
    // is refused here, where the client hears it, rather than dead-lettering a job later.
    if (!isPrincipal(principal)) {
      logger?.info('connection refused', { hasToken: token !== undefined });
      throw new Error('Unauthorized');
    }
    return {
      principalId: principal,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      // The fronts read this: WebSocket events flatten it next to principalId; an HTTP API v2
      // event carries it (and not principalId) under requestContext.authorizer.lambda.
      context: { principal },
    };
  };
}

/** Resolves to the token's subject, or rejects (bad signature, expired, wrong issuer...). */
function verifierFor(config: AuthConfig): (token: string) => Promise<string | undefined> {
  const options = {
    ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
    ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
  };
  let key: Uint8Array | JWTVerifyGetKey;
  if (config.AUTH_MODE === 'hs256') {
    if (!config.JWT_SECRET)
      throw new ConfigError([{ variable: 'JWT_SECRET', message: 'is required' }]);
    key = new TextEncoder().encode(config.JWT_SECRET);
  } else if (config.AUTH_MODE === 'jwks') {
    if (!config.JWKS_URL) throw new ConfigError([{ variable: 'JWKS_URL', message: 'is required' }]);
    // Fetched on first use and cached across invocations of the warm instance.
    key = createRemoteJWKSet(new URL(config.JWKS_URL));
  } else {
    return async () => undefined;
  }
  const algorithms = config.AUTH_MODE === 'hs256' ? ['HS256'] : ['RS256', 'ES256', 'PS256'];
  return async (token) => {
    const { payload } =
      typeof key === 'function'
        ? await jwtVerify(token, key, { ...options, algorithms })
        : await jwtVerify(token, key, { ...options, algorithms });
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  };
}

function tokenOf(event: APIGatewayRequestAuthorizerEvent): string | undefined {
  const query = event.queryStringParameters?.token;
  if (query) return query;
  const headers = event.headers ?? {};
  const header = headers.Authorization ?? headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? undefined;
}
