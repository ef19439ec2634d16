import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpStage,
  type IHttpRouteAuthorizer,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpJwtAuthorizer,
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { accessLogs } from './access-log.js';

/** The routes of DESIGN.md; all but /health need a token. */
export const HTTP_ROUTES: readonly { method: HttpMethod; path: string; open?: true }[] = [
  { method: HttpMethod.POST, path: '/runs' },
  { method: HttpMethod.GET, path: '/sessions/{id}/runs/{runId}' },
  { method: HttpMethod.GET, path: '/sessions/{id}/runs/{runId}/events' },
  { method: HttpMethod.POST, path: '/sessions/{id}/runs/{runId}/decisions' },
  { method: HttpMethod.GET, path: '/sessions' },
  { method: HttpMethod.GET, path: '/sessions/{id}' },
  { method: HttpMethod.GET, path: '/sessions/{id}/turns' },
  { method: HttpMethod.DELETE, path: '/sessions/{id}' },
  { method: HttpMethod.GET, path: '/agents' },
  { method: HttpMethod.GET, path: '/usage' },
  { method: HttpMethod.GET, path: '/approvals' },
  { method: HttpMethod.GET, path: '/health', open: true },
];

export type HttpAuth =
  | { kind: 'jwt'; issuer: string; audience: string }
  | { kind: 'lambda'; authorizer: IFunction }
  /** No authorizer available yet: only the open routes are created. */
  | { kind: 'unavailable' };

export interface KernelHttpApiProps {
  readonly handler: IFunction;
  readonly auth: HttpAuth;
  readonly corsOrigins: readonly string[];
  readonly throttle: { rateLimit: number; burstLimit: number };
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/** The HTTP API: one Lambda integration, a JWT (or Lambda) authorizer, CORS, logged stage. */
export class KernelHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: KernelHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      ...(props.corsOrigins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: [...props.corsOrigins],
              allowMethods: [
                CorsHttpMethod.GET,
                CorsHttpMethod.POST,
                CorsHttpMethod.DELETE,
                CorsHttpMethod.OPTIONS,
              ],
              allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });
    const logs = accessLogs(this, 'AccessLogs', {}, props.logRetention, props.logRemovalPolicy);
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: logs.settings,
    });
    // Payload 2.0: lib/aws/handlers/http-api.ts reads the principal from a v2 event, the JWT authorizer's
    // claims or the Lambda authorizer's returned context (requestContext.authorizer.lambda).
    const integration = new HttpLambdaIntegration('Handler', props.handler, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    const authorizer = this.authorizer(props.auth);
    for (const route of HTTP_ROUTES) {
      if (!route.open && !authorizer) continue;
      const [created] = this.api.addRoutes({
        path: route.path,
        methods: [route.method],
        integration,
        authorizer: route.open ? new HttpNoneAuthorizer() : authorizer,
      });
      if (route.open && created) {
        Validations.of(created).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            'Health checks (load balancers, uptime probes) carry no token; it returns no data.',
        });
      }
    }
  }

  get url(): string {
    return this.stage.url;
  }

  private authorizer(auth: HttpAuth): IHttpRouteAuthorizer | undefined {
    if (auth.kind === 'jwt') {
      return new HttpJwtAuthorizer('Jwt', auth.issuer, { jwtAudience: [auth.audience] });
    }
    if (auth.kind === 'lambda') {
      // The WebSocket authorizer function: payload 1.0 gives it the `methodArn` its IAM policy
      // names (the request shape is what it reads either way); its returned `context` reaches
      // the http function as requestContext.authorizer.lambda, never its principalId.
      // No caching: a cached policy for one route would deny the token on the others.
      return new HttpLambdaAuthorizer('Token', auth.authorizer, {
        identitySource: ['$request.header.Authorization'],
        responseTypes: [HttpLambdaResponseType.IAM],
        resultsCacheTtl: Duration.seconds(0),
      });
    }
    return undefined;
  }
}
