import { type ChildProcess, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';
import { FUNCTION_NAMES } from '../../infra/functions.js';
import { CfnSpec } from './cfn-spec.js';

// The real thing, once: `npm run synth` (cdk synth --quiet) on this repository's functions/ and cdk.json,
// with every TCP connection and DNS lookup of its Node.js processes recorded and refused.
let outdir: string;
let guardLog: string;
let guardLoaded: string;
let child: ChildProcess | undefined;
let result: {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
};

beforeAll(async () => {
  outdir = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.cache', 'infra-synth-'));
  guardLog = join(outdir, '..', `${outdir.split('/').pop()}-network.log`);
  writeFileSync(guardLog, '');
  guardLoaded = `${guardLog}.loaded`;
  writeFileSync(guardLoaded, '');
  const guard = join(import.meta.dirname, 'fixtures', 'network-guard.cjs');
  // No timer of its own: on a busy two-core machine the synth took over 170 s (a spawnSync
  // timeout killed it), and what "offline" means is proven by the guard's log below, not by a
  // clock. The hook's limit only stops a hang; the child is spawned so that limit can fire.
  child = spawn('npm', ['run', 'synth', '--', '--output', outdir], {
    cwd: PROJECT_ROOT,
    detached: true,
    env: {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${guard}`.trim(),
      NETWORK_GUARD_LOG: guardLog,
      NETWORK_GUARD_LOADED: guardLoaded,
      // No credentials lookup may turn into an IMDS call; npm's own update check is not ours.
      AWS_EC2_METADATA_DISABLED: 'true',
      npm_config_update_notifier: 'false',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  result = await new Promise((resolve, reject) => {
    child?.once('error', reject);
    child?.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}, 900_000);

afterAll(() => {
  // A synth still running (the hook's limit hit): stop its process group.
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  // .ci/run lints this very template with cfn-lint afterwards (one synth for both).
  const keep = process.env.AGENT_KERNEL_TEMPLATE_OUT;
  const template = join(outdir, 'AgentKernel.template.json');
  if (keep && existsSync(template)) copyFileSync(template, keep);
  rmSync(outdir, { recursive: true, force: true });
  rmSync(guardLog, { force: true });
  rmSync(guardLoaded, { force: true });
});

it('`npm run synth` finishes offline with cdk-nag clean', () => {
  // Exited by itself (no signal), with status 0.
  expect(result.signal).toBeNull();
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  // Not one TCP connection or DNS lookup tried by any of its Node.js processes: nothing it
  // could have waited on (an unreachable endpoint, a credentials or notices lookup).
  expect(readFileSync(guardLog, 'utf8')).toBe('');
  // ... and the guard was there to see it: in the cdk CLI and in the CDK app (tsx infra/app.ts).
  const watched = readFileSync(guardLoaded, 'utf8');
  expect(watched).toMatch(/aws-cdk|cdk synth|\/cdk /);
  expect(watched).toMatch(/infra\/app\.ts/);
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports).toEqual([]);
});

it('deploys a function for each entry file in functions/ and resolves #agents', () => {
  const template = JSON.parse(readFileSync(join(outdir, 'AgentKernel.template.json'), 'utf8'));
  const functions = Object.values(template.Resources as Record<string, { Type: string }>).filter(
    (r) => r.Type === 'AWS::Lambda::Function',
  );
  const entries = FUNCTION_NAMES.filter((name) =>
    existsSync(join(PROJECT_ROOT, 'functions', `${name}.ts`)),
  );
  // fanout is left out until the WebSocket functions exist; the other entries are all deployed.
  expect(functions.length).toBeGreaterThanOrEqual(entries.filter((n) => n !== 'fanout').length);
  const bundles = readdirSync(outdir)
    .filter((name) => name.startsWith('asset.'))
    .map((asset) => readFileSync(join(outdir, asset, 'index.mjs'), 'utf8'));
  // The demo agents (package.json "imports" #agents) read OPENAI_BASE_URL.
  expect(bundles.some((code) => code.includes('OPENAI_BASE_URL'))).toBe(true);
  // bundleAwsSdk defaults to true: no bundle imports the Lambda runtime's SDK.
  expect(bundles.some((code) => /from\s*"@aws-sdk\//.test(code))).toBe(false);
});

it('bundles minified ESM with a createRequire banner and a source map', () => {
  const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of assets) {
    const code = readFileSync(join(outdir, asset, 'index.mjs'), 'utf8');
    expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    // Minified: lines of kilobytes (only template literals keep their line breaks).
    expect(code.length / code.split('\n').length).toBeGreaterThan(200);
    expect(existsSync(join(outdir, asset, 'index.mjs.map'))).toBe(true);
  }
});

/** What these checks read of a function's (or a secret's) properties in the template. */
interface LambdaProperties {
  Environment: { Variables: Record<string, string> };
  Name?: string;
}

it("lists the agents entry's agents for ws-message (AGENT_NAMES), offline", () => {
  const template = JSON.parse(readFileSync(join(outdir, 'AgentKernel.template.json'), 'utf8'));
  const resources = Object.entries(
    template.Resources as Record<string, { Type: string; Properties: LambdaProperties }>,
  );
  const [, wsMessage] = resources.find(
    ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('WsMessageFunction'),
  )!;
  // The demo entry (package.json "imports" #agents) defines one agent, `demo`.
  expect(wsMessage.Properties.Environment.Variables.AGENT_NAMES).toBe('demo');
});

it('passes the CloudFormation resource specification (cdk.json defaults, real bundles)', async () => {
  const template = JSON.parse(readFileSync(join(outdir, 'AgentKernel.template.json'), 'utf8'));
  expect((await CfnSpec.load()).validate(template)).toEqual([]);
});

it('the default synth names the model key and creates the JWT secret the preflight checks', () => {
  const template = JSON.parse(readFileSync(join(outdir, 'AgentKernel.template.json'), 'utf8'));
  const resources = Object.entries(
    template.Resources as Record<string, { Type: string; Properties: LambdaProperties }>,
  );
  const env = (prefix: string) =>
    resources.find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(prefix))![1]
      .Properties.Environment.Variables;
  for (const fn of ['InvokeFunction', 'HttpFunction', 'WorkerFunction', 'StreamFunction']) {
    expect(env(fn).MODEL_SECRET_NAME, fn).toBe('agent-kernel/model-key');
  }
  const secrets = resources.filter(([, r]) => r.Type === 'AWS::SecretsManager::Secret');
  expect(secrets.map(([, r]) => r.Properties.Name)).toEqual(['agent-kernel/dev-jwt-secret']);
  expect(env('AuthorizerFunction').JWT_SECRET_NAME).toBe('agent-kernel/dev-jwt-secret');
});

it('bundles keep class and function names (esbuild keepNames): logs name ConfigError, not "at"', () => {
  const authorizer = readdirSync(outdir)
    .filter((name) => name.startsWith('asset.'))
    .map((asset) => readFileSync(join(outdir, asset, 'index.mjs'), 'utf8'))
    .filter((code) => code.includes('JWT_SECRET_NAME'));
  expect(authorizer.length).toBeGreaterThan(0);
  for (const code of authorizer) {
    // esbuild's (minified) __name helper: `s(this,"ConfigError")` in a class's static block.
    expect(code).toMatch(/[\w$]+\((this|[\w$]+),\s*"ConfigError"\)/);
    expect(code).toMatch(/[\w$]+\((this|[\w$]+),\s*"AgentKernelError"\)/);
  }
});
