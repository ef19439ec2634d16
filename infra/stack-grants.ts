import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { KernelConfig } from './config.js';
import {
  type DynamoAction,
  FAMILY_PARTITIONS,
  type ItemFamily,
  type TableAccess,
} from './functions.js';

type Families = [ItemFamily, readonly DynamoAction[]][];

/**
 * One statement per item family: only the actions listed, on the table only (it has no index),
 * and only on items whose partition key starts with the family's prefixes.
 */
export function grantTable(fn: IFunction, tableArn: string, table: TableAccess): void {
  for (const [family, actions] of Object.entries(table) as Families) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': FAMILY_PARTITIONS[family].map((prefix) => `${prefix}*`),
          },
        },
      }),
    );
  }
}

/** `ws-connect` → `WsConnectFunction`: stable construct ids (and so stable logical ids). */
export function functionId(name: string): string {
  return `${name.replace(/(^|-)(\w)/g, (_, _dash, c: string) => c.toUpperCase())}Function`;
}

/** Fair use on (the default): QUOTAS and the stack's limits (absent: no limit). */
export function fairUseEnv(config: KernelConfig, env: (name: string, value: string) => void): void {
  env('QUOTAS', 'on');
  const { connections, runsInFlight, runsPerMinute, tokensPerDay } = config.quotas;
  if (connections !== undefined) env('QUOTA_CONNECTIONS', String(connections));
  if (runsInFlight !== undefined) env('QUOTA_RUNS_IN_FLIGHT', String(runsInFlight));
  if (runsPerMinute !== undefined) env('QUOTA_RUNS_PER_MINUTE', String(runsPerMinute));
  if (tokensPerDay !== undefined) env('QUOTA_TOKENS_PER_DAY', String(tokensPerDay));
}
