/**
 * `npm run invoke -- <function> <event-file> [--set <path>=<value> ...]`: runs one function's real
 * handler module on a sample event, as Lambda would. `--set` overrides a string field of the event
 * (a dotted path, array items by index), e.g. the ids a resume takes from the paused reply:
 * `--set runId=… --set decisions.0.id=…`. Without TABLE_NAME it starts dynalite with a fresh
 * table, which ends with the process; with TABLE_NAME and DYNAMODB_ENDPOINT it uses that endpoint
 * (creating the table if missing), so a paused run outlives the invocation and can be resumed.
 * Without OPENAI_API_KEY or OPENAI_BASE_URL it starts the scripted model server, answering with
 * the agents entry's `offlineResponder` when it exports one.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDynamoClient, createTable } from '../stores/dynamodb/index.js';
import { type ScriptEntry, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { startDynalite } from './dynalite.js';
import { lambdaContext } from './lambda-context.js';

const FUNCTIONS = ['invoke', 'http'] as const;

const USAGE = `usage: npm run invoke -- <${FUNCTIONS.join('|')}> <event-file> [--set <path>=<value> ...]`;

async function main(argv: string[]): Promise<number> {
  const [name, eventFile, ...rest] = argv;
  const sets: string[] = [];
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] !== '--set' || rest[i + 1] === undefined) return usage();
    sets.push(rest[i + 1] as string);
  }
  if (!name || !eventFile || !(FUNCTIONS as readonly string[]).includes(name)) return usage();
  const event = JSON.parse(await readFile(resolve(eventFile), 'utf8'));
  for (const assignment of sets) {
    const problem = setField(event, assignment);
    if (problem) return usage(problem);
  }
  const stops: (() => Promise<void>)[] = [];
  try {
    if (process.env.TABLE_NAME && process.env.DYNAMODB_ENDPOINT) {
      const client = createDynamoClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
      await createTable(client, process.env.TABLE_NAME)
        .catch((err: Error) => {
          if (err.name !== 'ResourceInUseException') throw err;
        })
        .finally(() => client.destroy());
    } else if (!process.env.TABLE_NAME) {
      const dynalite = await startDynalite();
      stops.push(dynalite.stop);
      const client = createDynamoClient({ endpoint: dynalite.url });
      await createTable(client, 'agent-kernel-local');
      client.destroy();
      process.env.TABLE_NAME = 'agent-kernel-local';
      process.env.DYNAMODB_ENDPOINT = dynalite.url;
    }
    if (!process.env.OPENAI_API_KEY && !process.env.OPENAI_BASE_URL) {
      const entry = (await import('#agents')) as { offlineResponder?: ScriptEntry };
      const model = await startScriptedModelServer({
        fallback: entry.offlineResponder ?? { text: 'Hello from the offline scripted model.' },
      });
      stops.push(() => model.close());
      process.env.OPENAI_BASE_URL = model.url;
      process.env.OPENAI_API_KEY = 'offline';
    }
    // Imported only now: the function reads its configuration at load, as at a cold start.
    const url = pathToFileURL(resolve(import.meta.dirname, '../../functions', `${name}.ts`)).href;
    const { handler } = (await import(url)) as {
      handler: (event: unknown, context: unknown) => Promise<unknown>;
    };
    const result = await handler(event, lambdaContext(name));
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
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

process.exitCode = await main(process.argv.slice(2));
