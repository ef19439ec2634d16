/**
 * `npm run invoke -- [--agents <path>] [<function>] <event-file> [--set <path>=<value> ...]`:
 * runs one function's real handler module on an event, as Lambda would, and prints its result.
 * Without <function> the event's shape picks it (an SQS record its queue, a WebSocket event its
 * route, ...): every sample under events/ runs this way. `--set` overrides a string field of the
 * event (a dotted path, array items by index), e.g. the ids a resume takes from the paused reply:
 * `--set runId=… --set decisions.0.id=…`. What the function needs around it (table, queues, a
 * connections endpoint, the offline model) is started for the invocation (invoke-env.ts); with
 * TABLE_NAME and DYNAMODB_ENDPOINT it uses that table, so a paused run can be resumed later.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../testing/lambda-context.js';
import { useAgentsEntry } from './agents-entry.js';
import { CliError, fileMissing, parseFlags, runCommand } from './cli.js';
import { FUNCTIONS, type FunctionName } from './functions.js';
import { prepareEnvironment, withDevTokens } from './invoke-env.js';
import { localSqsClient } from './sqs.js';
import { drain } from './sqs-poller.js';

export { FUNCTIONS };

const USAGE =
  'usage: npm run invoke -- [--agents <path>] [<function>] <event-file> [--set <path>=<value> ...]\n' +
  `  <function>: ${FUNCTIONS.join(' | ')} (default: chosen from the event's shape)`;

async function main(argv: string[]): Promise<number> {
  const parsed = parseFlags(
    argv,
    { agents: { type: 'string' }, set: { type: 'string', multiple: true } },
    USAGE,
  );
  if (!parsed) return 0;
  useAgentsEntry(parsed.values.agents === undefined ? [] : ['--agents', parsed.values.agents]);
  const { positionals } = parsed;
  const sets = parsed.values.set ?? [];
  const named = (FUNCTIONS as readonly string[]).includes(positionals[0] ?? '');
  const [eventFile, ...extra] = named ? positionals.slice(1) : positionals;
  if (!eventFile || extra.length > 0) return usage(extra[0] && `unexpected: ${extra[0]}`);
  let event = await readEvent(eventFile);
  for (const assignment of sets) {
    const problem = setField(event, assignment);
    if (problem) return usage(problem);
  }
  const name = named ? (positionals[0] as FunctionName) : functionFor(event, eventFile);
  // Queues invoke makes itself have no consumer but the ones it runs (follow).
  const ownQueues = !process.env.RUN_QUEUE_URL;
  const stops = await prepareEnvironment();
  try {
    event = await withDevTokens(event, process.env);
    // Imported only now: the function reads its configuration at load, as at a cold start.
    const handler = await handlerOf(name);
    const following = name === 'ws-message' && ownQueues;
    // A message arrives only on a connection API Gateway opened: open the event's first.
    if (following)
      await handlerOf('ws-connect').then((connect) =>
        connect(connectOf(event), lambdaContext('ws-connect')),
      );
    const result = await handler(event, lambdaContext(name)).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      throw new CliError(
        'function-failed',
        `the ${name} function failed: ${message}`,
        'Lambda would report this invocation as an error (and SQS would redeliver its batch).',
      );
    });
    process.stderr.write(`${name} answered:\n`);
    console.log(JSON.stringify(result ?? null, null, 2));
    // What it queued runs as the deployment's event sources would run it (posts printed).
    if (following) await follow();
    return 0;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

async function handlerOf(name: FunctionName): Promise<Handler> {
  const url = pathToFileURL(resolve(import.meta.dirname, '../../functions', `${name}.ts`)).href;
  return ((await import(url)) as { handler: Handler }).handler;
}

/** The `$connect` of a WebSocket event's connection (same id, same authorizer context). */
function connectOf(event: unknown): unknown {
  const { requestContext } = event as { requestContext: Record<string, unknown> };
  return {
    requestContext: { ...requestContext, eventType: 'CONNECT', routeKey: '$connect' },
    headers: {},
    isBase64Encoded: false,
  };
}

/** Runs the local queues invoke made (runs, then events) until both are empty. */
async function follow(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const sqs = localSqsClient(env.SQS_ENDPOINT as string);
  const worker = await handlerOf('worker');
  const fanout = await handlerOf('fanout');
  const as = (handler: Handler, fn: FunctionName) => (batch: SQSEvent) =>
    handler(batch, lambdaContext(fn)) as Promise<SQSBatchResponse | undefined>;
  try {
    for (let round = 0; round < 20; round++) {
      const ran = await drain(sqs, env.RUN_QUEUE_URL as string, as(worker, 'worker'));
      const posted = await drain(sqs, env.EVENTS_QUEUE_URL as string, as(fanout, 'fanout'));
      if (ran + posted === 0) return;
      process.stderr.write(`worker ran ${ran} job(s), fanout ${posted} batch(es)\n`);
    }
  } finally {
    sqs.destroy();
  }
}

async function readEvent(file: string): Promise<unknown> {
  const path = resolve(file);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT' && err.code !== 'EISDIR') throw err;
    throw fileMissing(
      'event file',
      path,
      'pass a JSON event, e.g. one of the samples: npm run invoke -- events/invoke/run.json',
    );
  });
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(
      'event-invalid',
      `${path} is not JSON: ${(err as Error).message}`,
      'the samples under events/ show each function’s event.',
    );
  }
}

/** The fields of a Lambda event that tell its source apart. */
interface EventShape {
  readonly Records?: unknown;
  readonly type?: unknown;
  readonly methodArn?: unknown;
  readonly routeArn?: unknown;
  readonly requestContext?: { readonly eventType?: unknown; readonly http?: unknown };
  readonly rawPath?: unknown;
  readonly action?: unknown;
}

/** The function an event is for, from its shape (as its event source would deliver it). */
export function functionFor(event: unknown, file = 'the event'): FunctionName {
  const e = (event ?? {}) as EventShape;
  const record = Array.isArray(e.Records)
    ? (e.Records[0] as { eventSource?: unknown; eventSourceARN?: unknown } | undefined)
    : undefined;
  if (record?.eventSource === 'aws:sqs') {
    const queue =
      String(record.eventSourceARN ?? '')
        .split(':')
        .at(-1) ?? '';
    if (/approval/i.test(queue)) return 'approvals';
    if (/event/i.test(queue)) return 'fanout';
    return 'worker';
  }
  if (e.type === 'REQUEST' && (e.methodArn || e.routeArn)) return 'authorizer';
  const eventType = e.requestContext?.eventType;
  if (eventType === 'CONNECT') return 'ws-connect';
  if (eventType === 'DISCONNECT') return 'ws-disconnect';
  if (eventType === 'MESSAGE') return 'ws-message';
  if (e.requestContext?.http || e.rawPath) return 'http';
  if (typeof e.action === 'string') return 'invoke';
  throw new CliError(
    'event-unrecognized',
    `cannot tell which function ${file} is for`,
    `name it first: npm run invoke -- <${FUNCTIONS.join('|')}> ${file}`,
  );
}

function usage(problem?: string): number {
  if (problem) console.error(problem);
  console.error(USAGE);
  return 2;
}

/** `a.b.0.c=value`: sets that string in the event; answers what is wrong, if anything. */
function setField(event: unknown, assignment: string): string | undefined {
  const eq = assignment.indexOf('=');
  const path = eq > 0 ? assignment.slice(0, eq).split('.') : [];
  if (path.length === 0 || path.some((key) => key === '' || FORBIDDEN.has(key))) {
    return `--set ${assignment}: expected <path>=<value>, e.g. runId=abc or decisions.0.id=call_1`;
  }
  let target: unknown = event;
  for (const key of path.slice(0, -1)) {
    target = (target as Record<string, unknown> | undefined)?.[key];
  }
  if (typeof target !== 'object' || target === null) {
    return `--set ${assignment}: the event has no object at ${path.slice(0, -1).join('.')}`;
  }
  (target as Record<string, unknown>)[path.at(-1) as string] = assignment.slice(eq + 1);
  return undefined;
}

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  await runCommand(() => main(process.argv.slice(2)));
}
