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
  /** `import type` / `export type`: erased at build, so it loads nothing. */
  typeOnly: boolean;
  /** `import()`: loaded when called, never while the importer loads. */
  dynamic: boolean;
}

const KNOWN_VIOLATIONS: Record<string, string> = {};

/**
 * Import circles between files allowed, with why; like KNOWN_VIOLATIONS the list must stay exact.
 * `typeOnly`: allowed only while every import inside the circle is `import type`.
 */
const ALLOWED_CIRCLES: Record<string, { typeOnly: boolean; why: string }> = {
  'lib/core/agent.ts ⇄ lib/core/runner.ts': {
    typeOnly: true,
    why: 'an agent names its runner and a runner its agent: types only, erased at build',
  },
};

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
  /(?:^|[\s;])(?:import|export)(\s+type)?\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = (match[2] ?? match[3] ?? match[4]) as string;
    const target = spec.startsWith('.')
      ? relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts')
      : spec;
    found.push({ file, target, typeOnly: match[1] !== undefined, dynamic: match[3] !== undefined });
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

/** zod: its classic API, zod/mini (the schemas the small functions bundle) and mini's English messages. */
const isZod = (target: string) =>
  target === 'zod' || target === 'zod/mini' || target === 'zod/v4/locales/en.js';

const coreOnly = (target: string) =>
  isBuiltin(target) || isZod(target) || inDir(target, 'lib/core');

type Rule = [rule: string, dir: string, allowed: (target: string, file: string) => boolean];

/** lib/testing's stand-ins that need nothing but themselves: the scripted model server, the context. */
const STAND_INS = (t: string) =>
  t === 'lib/testing/scripted-model-server.ts' ||
  inDir(t, 'lib/testing/scripted-model-server') ||
  t === 'lib/testing/lambda-context.ts';

const RULES: Rule[] = [
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
      // The zod-alike checks the connection store's items go through (the fan-out bundles no zod).
      t === 'lib/transport/hand-check.ts' ||
      /^@aws-sdk\/(client|lib)-dynamodb$/.test(t),
  ],
  [
    'aws',
    'lib/aws',
    (t) =>
      !isRelative(t) ||
      [
        'lib/core',
        'lib/app',
        'lib/transport',
        'lib/stores',
        'lib/tracing',
        'lib/aws',
        // The protocol servers, loaded with import() by the stream function's routes.
        'lib/mcp',
        'lib/a2a',
      ].some((d) => inDir(t, d)),
  ],
  // The local stack's product path: the deployment's own modules and lib/testing's stand-ins
  // (the offline model, the Lambda context), never a test helper (test/, the rest of lib/testing).
  [
    'local',
    'lib/local',
    (t) => !isRelative(t) || (!inDir(t, 'test') && (!inDir(t, 'lib/testing') || STAND_INS(t))),
  ],
  // The test kits: the ports they check and what a runner is built of — never lib/local (whose
  // stack uses lib/testing's stand-ins: that would be a circle), lib/aws, a framework or a store
  // of the distribution.
  [
    'testing',
    'lib/testing',
    (t) =>
      coreOnly(t) ||
      ['vitest', '@smithy/eventstream-codec', 'aws-lambda'].includes(t) ||
      [
        'lib/testing',
        'lib/tools',
        'lib/frameworks/base',
        'lib/stores/memory',
        'lib/app/ports',
      ].some((d) => inDir(t, d)),
  ],
  // The stand-ins lib/local takes from lib/testing reach nothing else of lib/ (so the local stack
  // never loads a test kit through them).
  ...(['lib/testing/scripted-model-server.ts', 'lib/testing/lambda-context.ts'] as const).map(
    (file): Rule => [`stand-in ${file}`, file, (t) => !isRelative(t) || STAND_INS(t)],
  ),
  [
    'testing/scripted-model-server',
    'lib/testing/scripted-model-server',
    (t) => !isRelative(t) || STAND_INS(t),
  ],
  // The tool layer the framework folders share: no SDK, nothing of the distribution.
  [
    'frameworks/base',
    'lib/frameworks/base',
    (t) => coreOnly(t) || inDir(t, 'lib/tools') || inDir(t, 'lib/frameworks/base'),
  ],
  // A framework folder: its own SDK, lib/core, lib/tools and lib/frameworks/base — no other
  // framework, nothing of the distribution (lib/app, lib/aws, lib/stores, lib/transport,
  // lib/tracing, lib/local) and no other package.
  ...FRAMEWORKS.map(
    (name): Rule => [
      `frameworks/${name}`,
      `lib/frameworks/${name}`,
      (t) =>
        coreOnly(t) ||
        SDKS[name].test(t) ||
        ['lib/tools', 'lib/frameworks/base', `lib/frameworks/${name}`].some((d) => inDir(t, d)),
    ],
  ),
  // The protocol folders: their own SDK (an optional peer, like a framework's), the kernel, the
  // tool layer and the application layer — never AWS, a store or a framework.
  ...(
    [
      ['mcp', /^@modelcontextprotocol\/sdk(?:\/|$)/],
      ['a2a', /^@a2a-js\/sdk(?:\/|$)/],
    ] as const
  ).map(
    ([name, sdk]): Rule => [
      name,
      `lib/${name}`,
      (t) =>
        coreOnly(t) ||
        sdk.test(t) ||
        ['lib/tools', 'lib/app', 'lib/transport', `lib/${name}`].some((d) => inDir(t, d)),
    ],
  ),
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

/**
 * The import circles among `imports` (Tarjan's strongly connected components over static
 * imports; a dynamic `import()` loads later, so it closes none): each as its sorted files joined
 * by ⇄, and whether every import inside it is type-only.
 */
function circles(imports: readonly Import[]): { circle: string; typeOnly: boolean }[] {
  const edges = new Map<string, Import[]>();
  for (const i of imports) {
    if (i.dynamic || !isRelative(i.target)) continue;
    edges.set(i.file, [...(edges.get(i.file) ?? []), i]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: { circle: string; typeOnly: boolean }[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const { target } of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members = stack.splice(stack.indexOf(file));
    const inside = members
      .flatMap((m) => edges.get(m) ?? [])
      .filter((i) => members.includes(i.target));
    // One file alone is a circle only when it imports itself.
    if (members.length > 1 || inside.length > 0) {
      found.push({ circle: members.sort().join(' ⇄ '), typeOnly: inside.every((i) => i.typeOnly) });
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** Every file's imports, tests and examples too: a circle anywhere is one. */
const EVERY_IMPORT = ['lib', 'functions', 'infra', 'examples', 'bench', 'test']
  .flatMap(sources)
  .flatMap(importsOf);

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

  it.each([
    ['mcp', /^@modelcontextprotocol\/sdk(?:\/|$)/],
    ['a2a', /^@a2a-js\/sdk(?:\/|$)/],
  ] as const)(
    'the %s SDK (an optional peer) is imported only under lib/%s, and lib/%s only lazily',
    (name, sdk) => {
      const outside = ALL.filter(
        (i) => sdk.test(i.target) && inDir(i.file, 'lib') && !inDir(i.file, `lib/${name}`),
      );
      expect(outside.map((i) => `${i.file} → ${i.target}`)).toEqual([]);
      // The package root and the distribution load it only when a request needs it.
      const eager = ALL.filter(
        (i) =>
          inDir(i.target, `lib/${name}`) && !inDir(i.file, `lib/${name}`) && inDir(i.file, 'lib'),
      ).filter((i) => !i.dynamic && !i.typeOnly);
      expect(eager.map((i) => `${i.file} → ${i.target}`)).toEqual([]);
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

  it('has no import circle between files but the allowed ones', () => {
    const unexpected = circles(EVERY_IMPORT)
      .filter(
        ({ circle, typeOnly }) =>
          !(ALLOWED_CIRCLES[circle] && (typeOnly || !ALLOWED_CIRCLES[circle].typeOnly)),
      )
      .map(({ circle, typeOnly }) => `${circle}${typeOnly ? ' (type-only)' : ''}`);
    expect(unexpected).toEqual([]);
  });

  it('allows only circles that still exist', () => {
    const now = circles(EVERY_IMPORT).map(({ circle }) => circle);
    expect(Object.keys(ALLOWED_CIRCLES).filter((c) => !now.includes(c))).toEqual([]);
  });

  it('finds circles of any length, and a self-import, but not through import()', () => {
    const edge = (file: string, target: string, more: Partial<Import> = {}): Import => ({
      file,
      target,
      typeOnly: false,
      dynamic: false,
      ...more,
    });
    expect(
      circles([
        edge('lib/a.ts', 'lib/b.ts'),
        edge('lib/b.ts', 'lib/c.ts'),
        edge('lib/c.ts', 'lib/a.ts', { typeOnly: true }),
        edge('lib/c.ts', 'zod'),
        edge('lib/d.ts', 'lib/d.ts'),
        edge('lib/e.ts', 'lib/f.ts', { typeOnly: true }),
        edge('lib/f.ts', 'lib/e.ts', { typeOnly: true }),
        edge('lib/g.ts', 'lib/h.ts'),
        edge('lib/h.ts', 'lib/g.ts', { dynamic: true }),
      ]),
    ).toEqual([
      { circle: 'lib/a.ts ⇄ lib/b.ts ⇄ lib/c.ts', typeOnly: false },
      { circle: 'lib/d.ts', typeOnly: false },
      { circle: 'lib/e.ts ⇄ lib/f.ts', typeOnly: true },
    ]);
  });

  it('finds the imports it checks', () => {
    // A parser that found nothing would pass every rule above.
    expect(
      ALL.filter((i) => i.file === 'lib/aws/handlers/http-api.ts').map((i) => i.target),
    ).toContain('lib/app/front-door.ts');
    expect(ALL.length).toBeGreaterThan(500);
  });
});
