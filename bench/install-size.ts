/**
 * What a consumer installs: `npm pack` of this package (the work tree, or a git ref with
 * `--ref main`), installed from the npm registry into an empty project together with one
 * framework (`--framework @openai/agents`, at the version the packed package.json tests), then
 * node_modules measured. `npm run bench:install -- [--ref <git-ref>] [--framework <pkg>]`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { ref: { type: 'string' }, framework: { type: 'string', default: '@openai/agents' } },
});
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };

function run(command: string, args: string[], cwd: string): string {
  const out = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

/** The source to pack: this work tree, or the ref's tree next to this one's node_modules. */
function source(work: string): string {
  if (!values.ref) return root;
  const dir = join(work, 'src');
  mkdirSync(dir);
  const archive = execFileSync('git', ['archive', values.ref], { cwd: root, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function sizeOf(dir: string): number {
  return Number(run('du', ['-sb', dir], dir).split('\t')[0]);
}

/** node_modules by top-level name (scopes whole), largest first. */
function largest(modules: string): [string, number][] {
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .map((name): [string, number] => [name, sizeOf(join(modules, name))])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
}

const work = mkdtempSync(join(tmpdir(), 'ak-install-'));
try {
  const src = source(work);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], src));
  const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'));
  const framework = `${values.framework}@${manifest.devDependencies[values.framework as string]}`;
  const app = join(work, 'consumer');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }',
  );
  const tarball = join(work, packed[0].filename);
  run('npm', ['install', tarball, framework, '--no-audit', '--no-fund', '--prefer-offline'], app);
  const modules = join(app, 'node_modules');
  const total = sizeOf(modules);
  const count = run('npm', ['ls', '--all', '--parseable'], app).trim().split('\n').length - 1;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  console.log(`install size: agent-kernel-lambda (${values.ref ?? 'work tree'}) + ${framework}`);
  console.log(`  node_modules ${mb(total)} (${total} bytes), ${count} packages`);
  for (const [name, bytes] of largest(modules)) console.log(`  ${name.padEnd(28)} ${mb(bytes)}`);
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
  console.log(
    `machine: ${cpus().length}× ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${load}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
