import { type CfnElement, type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { accessLogs } from './access-log.js';

export interface KernelWebSocketApiProps {
  readonly stageName: string;
  readonly throttle: { rateLimit: number; burstLimit: number };
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /**
   * Access logs need the account-level API Gateway CloudWatch Logs role: false leaves them off
   * (`apiGatewayAccountRole=none`); a construct given here is deployed before the stage.
   */
  readonly accessLogs: boolean;
  readonly dependsOn?: IDependable;
}

/**
 * The WebSocket API and its stage. Routes come later (`wire`), once the functions exist, because
 * those functions need the stage's @connections URL first.
 */
export class KernelWebSocketApi extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;

  constructor(scope: Construct, id: string, props: KernelWebSocketApiProps) {
    super(scope, id);
    // Clients send `{action, ...}`; every action goes to $default, so ws-message validates it.
    this.api = new WebSocketApi(this, 'Api', {
      routeSelectionExpression: '$request.body.action',
    });
    const logs = props.accessLogs
      ? accessLogs(
          this,
          'AccessLogs',
          { connectionId: '$context.connectionId', eventType: '$context.eventType' },
          props.logRetention,
          props.logRemovalPolicy,
        )
      : undefined;
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: props.stageName,
      autoDeploy: true,
      throttle: props.throttle,
      ...(logs ? { accessLogSettings: logs.settings } : {}),
    });
    if (props.dependsOn) this.stage.node.addDependency(props.dependsOn);
    if (!logs) {
      const reason =
        'apiGatewayAccountRole=none: access logging needs the account-level API Gateway logging role; synth warns how to turn it on.';
      Validations.of(this.stage).acknowledge(
        { id: 'AwsSolutions-APIG1', reason },
        { id: 'Serverless-APIGWAccessLogging', reason },
      );
    }
  }

  /** $connect behind the REQUEST authorizer (browsers send the token as `?token=`). */
  wire(handlers: {
    connect: IFunction;
    disconnect: IFunction;
    message: IFunction;
    authorizer: IFunction;
  }): void {
    const authorizer = new WebSocketLambdaAuthorizer('Authorizer', handlers.authorizer, {
      identitySource: ['route.request.querystring.token'],
    });
    this.api.addRoute('$connect', {
      integration: new WebSocketLambdaIntegration('Connect', handlers.connect),
      authorizer,
    });
    const reason =
      'API Gateway accepts an authorizer only on $connect; later frames ride the connection it authorised.';
    for (const [key, handler, name] of [
      ['$disconnect', handlers.disconnect, 'Disconnect'],
      ['$default', handlers.message, 'Message'],
    ] as const) {
      const route = this.api.addRoute(key, {
        integration: new WebSocketLambdaIntegration(name, handler),
      });
      Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason });
    }
  }

  /** execute-api:ManageConnections on POST @connections of this stage only. */
  grantPostToConnections(fn: IFunction): void {
    const stack = Stack.of(this);
    const resource = `${this.api.apiId}/${this.stage.stageName}/POST/@connections/*`;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['execute-api:ManageConnections'],
        resources: [stack.formatArn({ service: 'execute-api', resource })],
      }),
    );
    // The finding's id spells the ARN as cdk-nag renders it: intrinsics as <LogicalId>.
    const show = (value: string, pseudo: string) =>
      Token.isUnresolved(value) ? `<${pseudo}>` : value;
    const apiId = stack.getLogicalId(this.api.node.defaultChild as CfnElement);
    const arn = [
      `arn:${show(stack.partition, 'AWS::Partition')}:execute-api`,
      show(stack.region, 'AWS::Region'),
      show(stack.account, 'AWS::AccountId'),
      `<${apiId}>`,
    ].join(':');
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arn}/${this.stage.stageName}/POST/@connections/*]`,
      reason: 'Connection ids are known only at run time; the grant is limited to this stage.',
    });
  }
}
