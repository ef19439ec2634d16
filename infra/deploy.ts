import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { awsAccountApi } from './account-api.js';
import { configFromContext, InvalidContextError, stackNameFromContext } from './config.js';
import { printNextSteps } from './next-steps.js';
import {
  type AccountApi,
  CHECKS,
  type CheckName,
  formatPreflight,
  runPreflight,
} from './preflight.js';

/**
 * `npm run deploy [-- <flags> <cdk options>]`: the preflight (infra/preflight.ts) against the
 * account, then `cdk deploy --all --outputs-file cdk-outputs.json` with the cdk options given
 * (e.g. `-c alarmEmail=…`), then what to do next. A failed check stops before cdk runs.
 * Flags of ours (never passed to cdk): --skip-<check> (jwt-secret, model-key, alarms,
 * concurrency), --skip-preflight, --no-alarms (deploy with alarms that notify nobody).
 */
export const OUTPUTS = 'cdk-outputs.json';
const PROJECT_ROOT = resolve(import.meta.dirname, '..');

export interface DeployDeps {
  /** Runs `npx cdk <args>`; its exit status. */
  readonly runCdk: (args: string[]) => number;
  readonly api: () => AccountApi & { destroy?(): void };
  readonly write: (text: string) => void;
  /** cdk.json's directory. */
  readonly projectRoot: string;
}

export interface ParsedArgs {
  readonly skip: Set<CheckName>;
  readonly noAlarms: boolean;
  readonly skipPreflight: boolean;
  readonly cdkArgs: string[];
  /** `-c key=value` / `--context key=value` given on the command line. */
  readonly context: Record<string, string>;
}

/**
 * Ours are taken out; everything else (cdk's own options, in their order) goes to cdk as given.
 * node:util parseArgs, not strict, reads the command line: its tokens say which arguments are
 * ours, and `-c`/`--context` (declared, so its value is consumed) gives the context we check.
 */
export function parseDeployArgs(argv: readonly string[]): ParsedArgs {
  const skip = new Set<CheckName>();
  const context: Record<string, string> = {};
  const ours = new Set<number>();
  let noAlarms = false;
  let skipPreflight = false;
  const { tokens } = parseArgs({
    args: [...argv],
    options: {
      'skip-preflight': { type: 'boolean' },
      'no-alarms': { type: 'boolean' },
      context: { type: 'string', short: 'c', multiple: true },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    // After `--` everything is cdk's; short-option groups (`-abc`) are cdk's too.
    if (token.kind !== 'option' || !token.rawName.startsWith('-')) continue;
    if (token.name === 'context') {
      const pair = token.value ?? '';
      const at = pair.indexOf('=');
      if (at > 0) context[pair.slice(0, at)] = pair.slice(at + 1);
      continue;
    }
    if (!token.rawName.startsWith('--')) continue;
    if (token.name === 'skip-preflight') skipPreflight = true;
    else if (token.name === 'no-alarms') noAlarms = true;
    else if (token.name.startsWith('skip-')) {
      const check = token.name.slice('skip-'.length) as CheckName;
      if (!(CHECKS as readonly string[]).includes(check)) {
        throw new InvalidContextError(
          `unknown flag ${token.rawName}: the checks are ${CHECKS.join(', ')}`,
        );
      }
      skip.add(check);
    } else continue;
    ours.add(token.index);
  }
  const cdkArgs = argv.filter((_, i) => !ours.has(i));
  return { skip, noAlarms, skipPreflight, cdkArgs, context };
}

/** The preflight, then cdk deploy when every check passed (or was skipped); the exit code. */
export async function deploy(argv: readonly string[], deps: DeployDeps): Promise<number> {
  let args: ParsedArgs;
  let config: ReturnType<typeof configFromContext>;
  let stackName: string;
  try {
    args = parseDeployArgs(argv);
    const cdkJson = JSON.parse(readFileSync(resolve(deps.projectRoot, 'cdk.json'), 'utf8'));
    const context = { ...(cdkJson.context ?? {}), ...args.context };
    config = configFromContext(context);
    stackName = stackNameFromContext(context.stackName);
  } catch (err) {
    if (!(err instanceof InvalidContextError)) throw err;
    deps.write(`error: ${err.message}\n`);
    return 1;
  }
  if (!args.skipPreflight) {
    const api = deps.api();
    try {
      const results = await runPreflight(
        { config, stackName, skip: args.skip, noAlarms: args.noAlarms },
        api,
      );
      deps.write(formatPreflight(results));
      if (results.some((r) => r.status === 'failed')) return 1;
    } finally {
      api.destroy?.();
    }
  }
  const status = deps.runCdk(['deploy', '--all', '--outputs-file', OUTPUTS, ...args.cdkArgs]);
  if (status === 0) printNextSteps(resolve(deps.projectRoot, OUTPUTS));
  return status;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await deploy(process.argv.slice(2), {
    runCdk: (args) => spawnSync('npx', ['cdk', ...args], { stdio: 'inherit' }).status ?? 1,
    api: awsAccountApi,
    write: (text) => process.stdout.write(text),
    projectRoot: PROJECT_ROOT,
  });
}
