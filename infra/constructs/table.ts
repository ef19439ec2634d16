import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE } from '../../lib/stores/dynamodb/table.js';

export interface KernelTableProps {
  readonly retain: boolean;
  /** DynamoDB refuses DeleteTable while on (CloudFormation included): off for throwaway stacks. */
  readonly deletionProtection: boolean;
}

/** The one table; its keys come from lib/stores/dynamodb/table.ts, the stores' own definition. */
export class KernelTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: KernelTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode:
        TABLE.billingMode === 'PAY_PER_REQUEST'
          ? BillingMode.PAY_PER_REQUEST
          : BillingMode.PROVISIONED,
      timeToLiveAttribute: TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
