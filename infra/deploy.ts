import { spawnSync } from 'node:child_process';
import { printNextSteps } from './next-steps.js';

/**
 * `npm run deploy [-- <cdk options>]`: `cdk deploy --all --outputs-file cdk-outputs.json` with
 * the options given (e.g. `-c alarmEmail=…`), then what to do next. A script rather than
 * `cdk … && tsx …` so npm's extra arguments reach cdk, not the printer.
 */
const OUTPUTS = 'cdk-outputs.json';
const args = ['cdk', 'deploy', '--all', '--outputs-file', OUTPUTS, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });
if (run.status === 0) printNextSteps(OUTPUTS);
process.exitCode = run.status ?? 1;
