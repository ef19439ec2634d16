import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The account-level (account *and* region wide) CloudWatch Logs role of API Gateway, without
 * which a WebSocket stage with access logging fails to deploy ("CloudWatch Logs role ARN must be
 * set in account settings"). HTTP APIs do not need it. There is one setting per account and
 * region: the last stack to set it wins, and deleting a stack does not unset it, so the role is
 * retained (a setting naming a deleted role would break every other API's logging).
 */
export class ApiGatewayAccountRole extends Construct {
  readonly account: CfnAccount;
  readonly role: Role;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway account-level role for CloudWatch Logs (access and execution logs)',
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    // The Account resource only points the setting at the role; removing it changes nothing.
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-wide API Gateway logging role serves every API of the account and region (log groups API Gateway names itself); AWS maintains this policy for exactly that role.',
    });
  }
}
