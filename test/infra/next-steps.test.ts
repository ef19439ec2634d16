import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';
import { nextSteps } from '../../infra/next-steps.js';

const OUTPUTS = {
  HttpUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/',
  WebSocketUrl: 'wss://def.execute-api.eu-west-1.amazonaws.com/live',
  InvokeFunctionName: 'AgentKernel-InvokeFunction-X',
  DashboardName: 'AgentKernel-Dashboard',
  AuthMode: 'hs256',
  JwtSecretName: 'team/dev-jwt',
};

describe('npm run deploy: what to do next', () => {
  it('prints the URLs, how to mint a token and that alarms notify nobody', () => {
    const text = nextSteps('AgentKernel', OUTPUTS);
    expect(text).toContain('curl https://abc.execute-api.eu-west-1.amazonaws.com/health');
    expect(text).toContain('wss://def.execute-api.eu-west-1.amazonaws.com/live?token=<jwt>');
    expect(text).toContain('npx tsx infra/mint-token.ts <user> --secret team/dev-jwt');
    expect(text).toContain('Alarms notify NOBODY yet: npm run deploy -- -c alarmEmail=');
  });

  it('with a topic: how to subscribe; with jwks: your identity provider', () => {
    const topic = 'arn:aws:sns:eu-west-1:123456789012:alarms';
    const text = nextSteps('K', { ...OUTPUTS, AuthMode: 'jwks', AlarmTopicArn: topic });
    expect(text).toContain(`aws sns subscribe --topic-arn ${topic} --protocol email`);
    expect(text).toContain('identity provider');
    expect(text).not.toContain('mint-token');
  });

  it('reads cdk-outputs.json as `cdk deploy --outputs-file` writes it', () => {
    const dir = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.cache', 'outputs-'));
    try {
      const file = join(dir, 'cdk-outputs.json');
      writeFileSync(file, JSON.stringify({ AgentKernel: OUTPUTS }));
      const run = spawnSync('npx', ['tsx', 'infra/next-steps.ts', file], {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('Agent kernel deployed (stack AgentKernel)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm run deploy passes its options to cdk deploy, with --outputs-file', () => {
    const run = spawnSync('npx', ['tsx', 'infra/deploy.ts', '--skip-preflight', '--help'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/cdk deploy/);
    expect(`${run.stdout}${run.stderr}`).toContain('--outputs-file');
    expect(run.stdout).not.toContain('Agent kernel deployed');
  });
});
