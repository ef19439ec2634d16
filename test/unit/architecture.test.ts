import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The dependency rules of docs/architecture.md ("Dependencies"), checked on every import of
// every source file. A rule broken on purpose for now is listed in KNOWN_VIOLATIONS with why;
// the list must stay exact (a fixed violation fails the test until it is removed).
const ROOT = resolve(import.meta.dirname, '../..');

interface Import {
  file: string;
  /** A repository path (for relative imports) or the bare specifier. */
  target: string;
}

const KNOWN_VIOLATIONS: Record<string, string> = {};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.') || name === 'cdk.out') continue;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = (match[1] ?? match[2] ?? match[3]) as string;
    const target = spec.startsWith('.')
      ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts')
      : spec;
    found.push({ file, target });
  }
  return found;
}

const ALL = ['lib', 'functions', 'infra'].flatMap(sources).flatMap(importsOf);
const FRAMEWORKS = ['openai', 'ai-sdk', 'langgraph', 'adk', 'strands', 'mastra'] as const;
/** The SDK packages of each framework: imported in lib/ only under lib/frameworks/<name>/. */
const SDKS: Record<(typeof FRAMEWORKS)[number], RegExp> = {
  openai: /^(?:@openai\/agents(?:-[a-z]+)?|openai)(?:\/|$)/,
  'ai-sdk': /^(?:ai|@ai-sdk\/[^/]+)(?:\/|$)/,
  langgraph: /^(?:@langchain\/[^/]+|langchain)(?:\/|$)/,
  adk: /^@google\/(?:adk|genai)(?:\/|$)/,
  strands: /^@strands-agents\/[^/]+(?:\/|$)/,
  mastra: /^@mastra\/[^/]+(?:\/|$)/,
};

const inDir = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const isBuiltin = (target: string) => target.startsWith('node:');
const isRelative = (target: string) => /^(lib|functions|infra|examples|test|bench)\//.test(target);

/** Imports of files under `dir` that break `allowed`; known violations left out and returned. */
function broken(rule: string, dir: string, allowed: (target: string, file: string) => boolean) {
  return ALL.filter((i) => inDir(i.file, dir) && !allowed(i.target, i.file))
    .map((i) => `${rule}: ${i.file} → ${i.target}`)
    .filter((line) => !(line in KNOWN_VIOLATIONS));
}

function seen(rule: string, dir: string, allowed: (target: string, file: string) => boolean) {
  return ALL.filter((i) => inDir(i.file, dir) && !allowed(i.target, i.file)).map(
    (i) => `${rule}: ${i.file} → ${i.target}`,
  );
}

const coreOnly = (target: string) =>
  isBuiltin(target) || target === 'zod' || inDir(target, 'lib/core');

const RULES: [string, string, (target: string, file: string) => boolean][] = [
  // lib/core imports only zod and Node built-ins.
  ['core', 'lib/core', coreOnly],
  ['tools', 'lib/tools', (t) => coreOnly(t) || inDir(t, 'lib/tools')],
  ['transport', 'lib/transport', (t) => coreOnly(t) || inDir(t, 'lib/transport')],
  // The application service: ports of lib/core and the wire types, nothing of AWS.
  ['app', 'lib/app', (t) => coreOnly(t) || inDir(t, 'lib/transport') || inDir(t, 'lib/app')],
  // lib/stores implements lib/core's ports and the distribution's (lib/app/ports), nothing else.
  [
    'stores',
    'lib/stores',
    (t) =>
      coreOnly(t) ||
      inDir(t, 'lib/stores') ||
      inDir(t, 'lib/app/ports') ||
      t === 'lib/transport/formats.ts' ||
      /^@aws-sdk\/(client|lib)-dynamodb$/.test(t),
  ],
  [
    'aws',
    'lib/aws',
    (t) =>
      !isRelative(t) ||
      ['lib/core', 'lib/app', 'lib/transport', 'lib/stores', 'lib/tracing', 'lib/aws'].some((d) =>
        inDir(t, d),
      ),
  ],
  // The local stack's product path: the deployment's own modules and the offline model, never a
  // test helper (test/, or lib/testing beyond the scripted model server).
  [
    'local',
    'lib/local',
    (t) =>
      !isRelative(t) ||
      (!inDir(t, 'test') &&
        (!inDir(t, 'lib/testing') || t === 'lib/testing/scripted-model-server.ts')),
  ],
  // infra reads only the key schema (and its own topology data); it never runs the agents.
  [
    'infra',
    'infra',
    (t) =>
      t !== '#agents' &&
      (!isRelative(t) || inDir(t, 'infra') || t === 'lib/stores/dynamodb/table.ts'),
  ],
  ['functions', 'functions', (t) => t === '#agents' || inDir(t, 'lib/aws')],
];

describe('dependency rules (docs/architecture.md)', () => {
  it.each(RULES)('%s: imports only what it may', (rule, dir, allowed) => {
    expect(broken(rule, dir, allowed)).toEqual([]);
  });

  it('lists only violations that still exist', () => {
    const all = RULES.flatMap(([rule, dir, allowed]) => seen(rule, dir, allowed));
    expect(Object.keys(KNOWN_VIOLATIONS).filter((v) => !all.includes(v))).toEqual([]);
  });

  it.each(FRAMEWORKS)(
    'lib/frameworks/%s is imported only by itself, examples, bench and tests',
    (name) => {
      const dir = `lib/frameworks/${name}`;
      const importers = ALL.filter((i) => inDir(i.target, dir) && !inDir(i.file, dir));
      expect(importers.map((i) => `${i.file} → ${i.target}`)).toEqual([]);
    },
  );

  it.each(FRAMEWORKS)(
    'the %s SDK is imported in lib/ only under its lib/frameworks/ folder',
    (name) => {
      const outside = ALL.filter(
        (i) =>
          SDKS[name].test(i.target) &&
          inDir(i.file, 'lib') &&
          !inDir(i.file, `lib/frameworks/${name}`),
      );
      expect(outside.map((i) => `${i.file} → ${i.target}`)).toEqual([]);
    },
  );

  it('functions/ entries are a few lines each', () => {
    for (const file of sources('functions')) {
      const lines = readFileSync(join(ROOT, file), 'utf8').trim().split('\n').length;
      expect(lines, file).toBeLessThanOrEqual(15);
    }
  });

  it('lib/core holds none of the ports only the distribution uses', () => {
    // Connections, subscriptions, run records and idempotency are lib/app's (lib/app/ports): the
    // runtime knows nothing of how a deployment reaches its clients.
    const moved =
      /\b(?:Connection\w*|Subscription\w*|RunRecord\w*|RunStatus\w*|RunTransition|RUN_MOVES_INTO|canMoveRun|Idempotency(?:Store|Claim\w*|KeyReused))\b/;
    const offending = sources('lib/core').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
        .filter(({ line }) => moved.test(line) || /connection|ag-ui/i.test(line))
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });

  it('finds the imports it checks', () => {
    // A parser that found nothing would pass every rule above.
    expect(ALL.filter((i) => i.file === 'lib/aws/http.ts').map((i) => i.target)).toContain(
      'lib/app/front-door.ts',
    );
    expect(ALL.length).toBeGreaterThan(500);
  });
});
