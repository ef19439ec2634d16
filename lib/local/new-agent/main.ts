/**
 * `npm run new-agent -- <dir> [--framework openai|ai-sdk|langgraph] [--name <agent>] [--force]`:
 * writes an agents project (agents.ts, package.json, README.md, .gitignore) that
 * `npm start -- --agents <dir>/agents.ts` serves at once: its imports resolve from its own
 * node_modules once installed, and from this clone's until then (lib/local/agents-imports.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError, parseFlags, runCommand } from '../cli.js';
import { agentsModule, FRAMEWORK_PACKAGES, FRAMEWORKS, type Framework } from './templates.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const USAGE =
  'usage: npm run new-agent -- <dir> [--framework openai|ai-sdk|langgraph] [--name <agent>] [--force]';

export interface NewAgentOptions {
  dir: string;
  framework: Framework;
  name: string;
  force: boolean;
}

/** The options, or undefined when `--help` printed the usage. */
export function parseNewAgentArgs(argv: readonly string[]): NewAgentOptions | undefined {
  const parsed = parseFlags(
    argv,
    {
      framework: { type: 'string', default: 'openai' },
      name: { type: 'string', default: 'assistant' },
      force: { type: 'boolean', default: false },
    },
    USAGE,
  );
  if (!parsed) return undefined;
  const { values, positionals } = parsed;
  const [dir, ...extra] = positionals;
  if (!dir || extra.length > 0) {
    throw new CliError('invalid-argument', dir ? `unexpected: ${extra[0]}` : 'no <dir>', USAGE);
  }
  const framework = values.framework as Framework;
  if (!FRAMEWORKS.includes(framework)) {
    throw new CliError('invalid-argument', `unknown framework: ${framework}`, USAGE);
  }
  const name = values.name as string;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new CliError('invalid-argument', `agent name ${name}: use A-Z a-z 0-9 _ - (≤64)`, USAGE);
  }
  return { dir: resolve(dir), framework, name, force: values.force === true };
}

/** Writes the project; answers the files written (absolute paths). */
export function writeAgentsProject(options: NewAgentOptions, root: string = ROOT): string[] {
  const { dir, framework, name } = options;
  const entry = join(dir, 'agents.ts');
  if (existsSync(entry) && !options.force) {
    throw new CliError('file-exists', `${entry} exists`, 'pick another <dir>, or pass --force.');
  }
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const pinned = (pkg: string): string =>
    manifest.dependencies?.[pkg] ?? manifest.devDependencies?.[pkg] ?? 'latest';
  const kernel = relative(dir, root) || '.';
  const dependencies: Record<string, string> = {
    'agent-kernel-lambda': `file:${kernel}`,
    zod: pinned('zod'),
  };
  for (const pkg of FRAMEWORK_PACKAGES[framework]) dependencies[pkg] = pinned(pkg);
  const files: Record<string, string> = {
    'agents.ts': agentsModule(framework, name),
    'package.json': `${JSON.stringify(
      { name: slug(dir), private: true, type: 'module', dependencies: sorted(dependencies) },
      null,
      2,
    )}\n`,
    'README.md': readme(dir, name, framework),
    '.gitignore': 'node_modules/\n',
  };
  const written: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const path = join(dir, file);
    if (file !== 'agents.ts' && existsSync(path) && !options.force) continue;
    writeFileSync(path, text);
    written.push(path);
  }
  return written;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function slug(dir: string): string {
  const base = dir.split('/').filter(Boolean).at(-1) ?? 'my-agents';
  return base.toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'my-agents';
}

function readme(dir: string, name: string, framework: Framework): string {
  const entry = join(dir, 'agents.ts');
  return `# ${slug(dir)}

One agent, \`${name}\` (${framework}), with a read-only tool \`get_time\`. From the
agent-kernel-lambda clone:

\`\`\`sh
npm start -- --agents ${entry}
npm run invoke -- --agents ${entry} events/invoke/run.json --set agent=${name} --set input="what time is it?"
AGENT_KERNEL_AGENTS=${entry} npm run synth
\`\`\`

Offline (no \`OPENAI_API_KEY\`) the scripted model answers with \`offlineResponder\`. Imports
resolve from this folder's node_modules once you \`npm install\` here, else from the clone's.
\`agent-kernel-lambda\` itself always means the clone's kernel, the one the functions run.
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCommand(async () => {
    const options = parseNewAgentArgs(process.argv.slice(2));
    if (!options) return 0;
    const written = writeAgentsProject(options);
    const entry = relative(process.cwd(), join(options.dir, 'agents.ts')) || 'agents.ts';
    console.log(`wrote ${written.map((f) => relative(process.cwd(), f)).join(', ')}`);
    console.log(`next:  npm start -- --agents ${entry}`);
    return 0;
  });
}
