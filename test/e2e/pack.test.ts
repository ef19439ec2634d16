import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packKernel } from './helpers/pack.js';

// The package as a user gets it: `npm pack`, installed into a project outside the repo, used
// under plain `node` (no tsx, no source files) and type-checked by `tsc` through its exports.
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');

let work: string;
let app: string;
let lean: string;
let packed: string[];

/** Optional peers the AWS and tracing subpaths need; the root and the frameworks need none. */
const HEAVY = /^@(aws-sdk|opentelemetry|aws-lambda-powertools|middy|smithy)\//;

/** npm and node as the project's scripts get them: the pinned Node first on PATH. */
function sh(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH, NO_COLOR: '1' },
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ak-pack-'));
  app = join(work, 'app');
  lean = join(work, 'lean');
  mkdirSync(app);
  mkdirSync(lean);
  // `npm pack` runs `prepack`, which builds dist/ from source (one pack at a time: helpers/pack).
  const info = await packKernel(work);
  packed = info.files.map((f) => f.path);
  const manifestOf = '{ "name": "consumer", "private": true, "type": "module" }';
  writeFileSync(join(app, 'package.json'), manifestOf);
  writeFileSync(join(lean, 'package.json'), manifestOf);
  // The full consumer also uses ./stores, ./tracing and ./testing: it installs their peers.
  const heavy = Object.keys(manifest.peerDependencies).filter((n) => HEAVY.test(n));
  const pin = (n: string) => `${n}@${manifest.devDependencies[n]}`;
  const peers = ['@openai/agents', '@types/node', ...heavy].map(pin);
  const install = ['install', join(work, info.filename), '--prefer-offline', '--no-audit'];
  sh('npm', [...install, ...peers, '--no-fund'], app);
  // The lean one: the package and one framework, nothing else.
  sh('npm', [...install, pin('ai'), '--no-fund'], lean);
}, 600_000);

afterAll(() => {
  // Removed in the background: node_modules on a busy disk can outlast the hook's timeout.
  if (work) spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
});

describe('npm pack', () => {
  it('ships built JS, declarations and source maps, and no tests, functions or examples', () => {
    // Assess
    expect(packed).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/index.js.map']),
    );
    for (const target of Object.values(manifest.exports) as (string | Record<string, string>)[]) {
      if (typeof target === 'string') continue;
      expect(packed).toContain(target.import?.slice(2));
      expect(packed).toContain(target.types?.slice(2));
    }
    expect(packed.filter((p) => /^(test|functions|examples|infra|bench)\//.test(p))).toEqual([]);
    expect(packed.filter((p) => p.endsWith('.test.ts'))).toEqual([]);
  });

  it('runs an agent with a session store and a tool under plain node', () => {
    // Prepare
    writeFileSync(join(app, 'agent.mjs'), AGENT_SCRIPT);

    // Act
    const run = sh(process.execPath, ['agent.mjs'], app);

    // Assess
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(out.resolved).toBe(`file://${app}/node_modules/agent-kernel-lambda/dist/index.js`);
    expect(out.first).toEqual({ status: 'completed', text: 'Appended.' });
    expect(out.second).toEqual({ status: 'completed', text: 'Two turns.' });
    expect(out.turns).toBe(2);
    expect(out.subpaths).toEqual([true, true, true, true, true, true]);
    // The second model request carried the first turn, read back from the session store.
    expect(out.historySeen).toBe(true);
    expect(readFileSync(join(app, 'side-effects.txt'), 'utf8')).toBe('from the model\n');
  }, 60_000);

  it('installs and runs the root and a framework subpath without the AWS SDK or OpenTelemetry', () => {
    // Prepare
    writeFileSync(join(lean, 'agent.mjs'), LEAN_SCRIPT);
    const installed = (scope: string) =>
      spawnSync('ls', [join(lean, 'node_modules', scope)], { encoding: 'utf8' }).stdout.trim();

    // Act
    const run = sh(process.execPath, ['agent.mjs'], lean);

    // Assess
    for (const scope of [
      '@aws-sdk',
      '@opentelemetry',
      '@aws-lambda-powertools',
      '@middy',
      '@smithy',
      // The local stack's and the functions' packages (devDependencies since issue 28).
      '@ag-ui',
      'jose',
      'ws',
    ]) {
      expect(installed(scope), scope).toBe('');
    }
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(out.reply).toEqual({ status: 'completed', text: 'Hello from ai 7.' });
    expect(out.turns).toBe(1);
    // An AWS subpath names the peer it lacks.
    expect(out.stores).toMatch(/Cannot find package '@aws-sdk\/(client-dynamodb|lib-dynamodb)'/);
  }, 60_000);

  it('resolves the types through the exports map (tsc --noEmit)', () => {
    // Prepare
    writeFileSync(join(app, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG));

    // Act
    const check = spawnSync(process.execPath, [tsc, '-p', app], { encoding: 'utf8' });

    // Assess
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 120_000);
});

const AGENT_SCRIPT = `
import { appendFileSync } from 'node:fs';
import { Agent as SdkAgent, OpenAIProvider } from '@openai/agents';
import * as z from 'zod';
import { InMemorySessionStore, Runtime } from 'agent-kernel-lambda';
import { OPENAI_INTEGRATION, OpenAIModule } from 'agent-kernel-lambda/frameworks/openai';
import { startScriptedModelServer } from 'agent-kernel-lambda/testing';
import { defineTool, Executor } from 'agent-kernel-lambda/tools';

const server = await startScriptedModelServer({
  script: [
    { toolCalls: [{ name: 'append_line', arguments: { line: 'from the model' } }] },
    { text: 'Appended.' },
    { text: 'Two turns.' },
  ],
});
try {
  const append = defineTool({
    name: 'append_line',
    description: 'Append a line to a file',
    input: z.object({ line: z.string() }),
    handler: ({ line }) => {
      appendFileSync('side-effects.txt', line + '\\n');
      return 'ok';
    },
  });
  const agent = new SdkAgent({
    name: 'helper',
    instructions: 'Be brief.',
    model: 'scripted-model',
    tools: [OPENAI_INTEGRATION.exportTool(append, { executor: new Executor() })],
  });
  const modelProvider = new OpenAIProvider({ apiKey: 'none', baseURL: server.url, useResponses: true });
  const sessions = new InMemorySessionStore();
  const runtime = new Runtime({
    sessions,
    modules: [new OpenAIModule([agent], { runConfig: { modelProvider } })],
  });
  const first = await runtime.run('helper', 'session-1', 'Append a line');
  let text = '';
  for await (const event of runtime.stream('helper', 'session-1', 'And now?')) {
    if (event.type === 'text-delta') text += event.delta;
  }
  const stored = await sessions.load('session-1');
  // Every subpath whose peers are installed loads under plain node.
  const subpaths = ['core', 'stores', 'tools', 'transport', 'tracing', 'frameworks/base'];
  const loaded = await Promise.all(subpaths.map((p) => import('agent-kernel-lambda/' + p)));
  console.log(JSON.stringify({
    subpaths: loaded.map((m) => Object.keys(m).length > 0),
    resolved: import.meta.resolve('agent-kernel-lambda'),
    first: { status: first.status, text: first.text },
    second: { status: 'completed', text },
    turns: stored?.data.turns,
    historySeen: JSON.stringify(server.requests.at(-1)?.body).includes('Appended.'),
  }));
} finally {
  await server.close();
}
`;

// AI SDK 7's own mock model (ai/test): a real streamText run with no network and no other package.
const LEAN_SCRIPT = `
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { InMemorySessionStore, Runtime } from 'agent-kernel-lambda';
import { AiSdkModule } from 'agent-kernel-lambda/frameworks/ai-sdk';

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 2 } };
const finishReason = { unified: 'stop', raw: 'stop' };
const model = new MockLanguageModelV4({
  // Runtime.run takes the non-streaming path (generateText); stream() would use doStream.
  doGenerate: async () => ({
    content: [{ type: 'text', text: 'Hello from ai 7.' }],
    finishReason,
    usage,
    warnings: [],
  }),
  doStream: async () => ({
    stream: simulateReadableStream({
      chunks: [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hello from ai 7.' },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason, usage },
      ],
    }),
  }),
});
const sessions = new InMemorySessionStore();
const runtime = new Runtime({
  sessions,
  modules: [new AiSdkModule([{ name: 'helper', model }])],
});
const result = await runtime.run('helper', 'session-1', 'Hi');
const stores = await import('agent-kernel-lambda/stores').then(() => 'loaded', (err) => String(err));
console.log(JSON.stringify({
  reply: { status: result.status, text: result.text },
  turns: (await sessions.load('session-1'))?.data.turns,
  stores,
}));
`;

// A type error here (or any resolving to \`any\`, which would leave the expect-error unused) fails tsc.
const CONSUMER_TS = `
import { InMemorySessionStore, Runtime, type StreamEvent } from 'agent-kernel-lambda';
import { OpenAIModule } from 'agent-kernel-lambda/frameworks/openai';
import { InMemoryPausedRunStore } from 'agent-kernel-lambda/stores';
import { startScriptedModelServer } from 'agent-kernel-lambda/testing';
import { defineTool } from 'agent-kernel-lambda/tools';
import { ERROR_CODES } from 'agent-kernel-lambda/transport';
import * as z from 'zod';

const runtime = new Runtime({
  sessions: new InMemorySessionStore(),
  pausedRuns: new InMemoryPausedRunStore(),
  modules: [new OpenAIModule([])],
});
export async function reply(): Promise<string> {
  const result = await runtime.run('helper', 'session-1', 'Hello');
  return result.status === 'completed' ? result.text : result.runId;
}
export function isText(event: StreamEvent): boolean {
  return event.type === 'text-delta';
}
export const codes: string[] = Object.keys(ERROR_CODES);
export const server: typeof startScriptedModelServer = startScriptedModelServer;
export const tool = defineTool({
  name: 'noop',
  description: 'nothing',
  input: z.object({}),
  handler: () => 'ok',
});
// @ts-expect-error an agent name is a string
runtime.run(42, 'session-1', 'Hello');
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  files: ['consumer.ts'],
};
