import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** One stack's outputs, as `cdk deploy --outputs-file` writes them. */
export type StackOutputs = Record<string, string>;

/** What to do after `npm run deploy`: the URLs, a token, the alarms (printed by the deploy). */
export function nextSteps(stack: string, o: StackOutputs): string {
  const lines = [`\nAgent kernel deployed (stack ${stack}). Next:`];
  if (o.HttpUrl) {
    lines.push(`  HTTP API:       ${o.HttpUrl}`, `    curl ${o.HttpUrl}health`);
  }
  if (o.WebSocketUrl) lines.push(`  WebSocket:      ${o.WebSocketUrl}?token=<jwt>`);
  if (o.InvokeFunctionName)
    lines.push(`  Direct invoke:  aws lambda invoke --function-name ${o.InvokeFunctionName} ...`);
  if (o.AuthMode === 'hs256') {
    lines.push(
      '  A token (development HS256, signed with the secret the authorizer reads):',
      `    npx tsx infra/mint-token.ts <user> --secret ${o.JwtSecretName ?? 'agent-kernel/dev-jwt-secret'}`,
    );
  } else if (o.AuthMode) {
    lines.push(
      '  A token: an access token of your identity provider (jwksUrl, jwtIssuer, jwtAudience).',
    );
  }
  lines.push(
    `    curl -H "Authorization: Bearer <jwt>" ${o.HttpUrl ?? '<HttpUrl>/'}agents`,
    '  Check the whole path: npm run smoke (reads cdk-outputs.json).',
  );
  if (o.AlarmTopicArn) {
    lines.push(
      `  Alarms notify ${o.AlarmTopicArn}: confirm the subscription e-mail, or subscribe:`,
      `    aws sns subscribe --topic-arn ${o.AlarmTopicArn} --protocol email --notification-endpoint you@example.com`,
    );
  } else {
    lines.push(
      '  Alarms notify NOBODY yet: npm run deploy -- -c alarmEmail=you@example.com',
      '    (or -c alarmTopicArn=<your SNS topic ARN>)',
    );
  }
  if (o.DashboardName) lines.push(`  Dashboard:      CloudWatch > Dashboards > ${o.DashboardName}`);
  return `${lines.join('\n')}\n`;
}

/** `tsx infra/next-steps.ts [cdk-outputs.json]`: every stack of the file. */
export function printNextSteps(path = 'cdk-outputs.json'): void {
  // `cdk deploy --help` or a deploy of no stack writes no outputs: nothing to say.
  if (!existsSync(path)) return;
  const all = JSON.parse(readFileSync(path, 'utf8')) as Record<string, StackOutputs>;
  for (const [stack, outputs] of Object.entries(all))
    process.stdout.write(nextSteps(stack, outputs));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printNextSteps(process.argv[2]);
