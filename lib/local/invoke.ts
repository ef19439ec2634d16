/**
 * `npm run invoke -- <function> <event-file>`: runs one function's real handler module on a sample
 * event, as Lambda would. Without TABLE_NAME it starts dynalite with a fresh table; without
 * OPENAI_API_KEY or OPENAI_BASE_URL it starts the scripted model server, answering with the agents
 * entry's `offlineResponder` when it exports one.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDynamoClient, createTable } from '../stores/dynamodb/index.js';
import { fakeLambdaContext } from '../testing/lambda-context.js';
import { type ScriptEntry, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { startDynalite } from './dynalite.js';

const FUNCTIONS = ['invoke', 'http'] as const;

async function main(argv: string[]): Promise<number> {
  const [name, eventFile] = argv;
  if (!name || !eventFile || !(FUNCTIONS as readonly string[]).includes(name)) {
    console.error(`usage: npm run invoke -- <${FUNCTIONS.join('|')}> <event-file>`);
    return 2;
  }
  const event = JSON.parse(await readFile(resolve(eventFile), 'utf8'));
  const stops: (() => Promise<void>)[] = [];
  try {
    if (!process.env.TABLE_NAME) {
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
    const result = await handler(event, fakeLambdaContext(name));
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
