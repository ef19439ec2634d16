/**
 * `npm run bench:memory`: each function's memory, to size it (infra/config-memory.ts). Every
 * function is bundled as the stack bundles it (infra/bundling.ts) and imported in a fresh
 * Node.js process: its RSS after the cold import. The worker, bundled once per framework (its
 * agents entry as `#agents`), then runs BENCH_TURNS turns of one session against dynalite and
 * the scripted model server (a BENCH_TOKENS-token answer each), through its real handler with
 * an SQS event per turn: the process's peak RSS over those turns (`maxRSS`), and the growth per
 * turn past the first. A turn that never reaches the model fails the bench.
 *
 *   npm run bench:memory            BENCH_TURNS=10 npm run bench:memory
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_MEMORY_MB, sizedMemoryMb } from '../infra/config-memory.js';
import { startDynalite } from '../lib/local/dynalite.js';
import { offlineModelEnv } from '../lib/local/offline-model.js';
import { createDynamoClient } from '../lib/stores/dynamodb/client.js';
import { tableDefinition } from '../lib/stores/dynamodb/table.js';
import { startScriptedModelServer } from '../lib/testing/scripted-model-server.js';
import { BENCH_ENV, bundleFile, ROOT, scratchDir } from './bundle-tools.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 500);
/** The worker per framework: its agents entry and the agent a job names. */
const ALL_FRAMEWORKS: [framework: string, agents: string, agent: string][] = [
  ['openai', 'examples/demo/agents.ts', 'demo'],
  ['adk', 'examples/adk/agents.ts', 'weather'],
  ['strands', 'examples/strands/agents.ts', 'strands'],
  ['mastra', 'examples/mastra/agents.ts', 'weather'],
];
/** BENCH_FRAMEWORKS=openai,adk narrows the worker rows; BENCH_FUNCTIONS=none skips the imports. */
const wanted = process.env.BENCH_FRAMEWORKS?.split(',');
const FRAMEWORKS = ALL_FRAMEWORKS.filter(([name]) => !wanted || wanted.includes(name));
const ONLY_FUNCTIONS = process.env.BENCH_FUNCTIONS?.split(',');

/** One child: imports the bundle, then runs `turns` jobs through its handler; prints RSS. */
const CHILD = `
const file = process.argv[1], turns = Number(process.argv[2]), agent = process.argv[3];
const id = agent + '-' + process.pid;
const mb = (bytes) => bytes / 1024 / 1024;
const mod = await import(file);
const afterImport = mb(process.memoryUsage().rss);
const peaks = [];
for (let t = 0; t < turns; t++) {
  const job = { kind: 'run', requestId: id + '-' + t, principal: 'user-1', sessionId: id,
    runId: id + '-run-' + t, enqueuedAt: Date.now(), agent, input: 'Tell me a long story.' };
  const record = { messageId: 'm' + t, receiptHandle: 'r' + t, body: JSON.stringify(job),
    attributes: { ApproximateReceiveCount: '1', MessageGroupId: id },
    messageAttributes: {}, eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:0:runs.fifo',
    awsRegion: 'us-east-1', md5OfBody: '' };
  const out = await mod.handler({ Records: [record] }, { getRemainingTimeInMillis: () => Number(process.env.BENCH_TURN_MS ?? 120000) });
  if (out?.batchItemFailures?.length) throw new Error('turn ' + t + ' failed');
  peaks.push(process.resourceUsage().maxRSS / 1024);
}
process.stdout.write(JSON.stringify({ afterImport, peaks }));
process.exit(0);
`;

interface Sample {
  afterImport: number;
  peaks: number[];
}

/** Async: dynalite and the model server live in this process and must keep answering. */
function child(file: string, env: NodeJS.ProcessEnv, turns = 0, agent = ''): Promise<Sample> {
  const proc = spawn(
    process.execPath,
    ['--input-type=module', '-e', CHILD, file, String(turns), agent],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => {
      // The handler's log lines share stdout: the sample is the last JSON object.
      const at = stdout.lastIndexOf('{"afterImport"');
      if (code !== 0 || at < 0) reject(new Error(`${file}: exit ${code}: ${stderr.slice(-1500)}`));
      else resolve(JSON.parse(stdout.slice(at)) as Sample);
    });
  });
}

const out = scratchDir();
const table = 'bench-memory';
const dynamo = await startDynalite();
const model = await startScriptedModelServer({ fallback: { text: 'word '.repeat(TOKENS) } });
try {
  const client = createDynamoClient({ endpoint: dynamo.url, region: 'us-east-1' });
  await client.send(new CreateTableCommand(tableDefinition(table)));
  client.destroy();
  const env: NodeJS.ProcessEnv = {
    ...BENCH_ENV,
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: dynamo.url,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DELIVERY_MODE: 'direct',
    WEBSOCKET_ENDPOINT: 'http://127.0.0.1:9',
    ...offlineModelEnv({}, model.url),
  };
  console.log(
    `memory: each bundle (infra/bundling.ts) in a fresh Node ${process.version} process; the worker runs ${TURNS} turns of one session (${TOKENS}-token answers) against dynalite and the scripted model server, delivery direct`,
  );
  console.log(
    '| function | RSS after cold import | peak RSS over the turns | growth per turn | sized (infra/config-memory.ts rule) | default deployed |',
  );
  console.log('|---|---|---|---|---|---|');
  // Each row as it is measured: a failure later keeps what was printed.
  const rows = { push: (row: string) => console.log(row) };
  const names = readdirSync(join(ROOT, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .filter((name) => !ONLY_FUNCTIONS || ONLY_FUNCTIONS.includes(name))
    .sort();
  for (const name of names) {
    const file = join(out, name, 'index.mjs');
    await bundleFile({ entry: `functions/${name}.ts`, outfile: file, bundleAwsSdk: true });
    const { afterImport } = await child(file, env);
    const sized = sizedMemoryMb(afterImport);
    rows.push(
      `| ${name} | ${afterImport.toFixed(0)} MB | | | ${sized} MB | ${DEFAULT_MEMORY_MB[name] ?? '?'} MB |`,
    );
  }
  for (const [framework, agents, agent] of FRAMEWORKS) {
    const file = join(out, `worker-${framework}`, 'index.mjs');
    await bundleFile({ entry: 'functions/worker.ts', outfile: file, bundleAwsSdk: true, agents });
    const before = model.requests.length;
    const { afterImport, peaks } = await child(file, env, TURNS, agent);
    if (model.requests.length - before < TURNS)
      throw new Error(
        `worker (${framework}): ${model.requests.length - before} model calls for ${TURNS} turns`,
      );
    const peak = Math.max(...peaks);
    const growth = TURNS > 1 ? ((peaks.at(-1) as number) - (peaks[0] as number)) / (TURNS - 1) : 0;
    rows.push(
      `| worker (${framework}) | ${afterImport.toFixed(0)} MB | ${peak.toFixed(0)} MB | +${growth.toFixed(1)} MB | ${sizedMemoryMb(peak)} MB | ${DEFAULT_MEMORY_MB.worker} MB |`,
    );
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await model.close();
  await dynamo.stop();
  if (!process.env.BENCH_KEEP) rmSync(out, { recursive: true, force: true });
}
