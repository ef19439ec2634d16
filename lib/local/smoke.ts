/**
 * `npm run smoke`: the post-deploy check. Against a deployed stack it reads the outputs
 * `cdk deploy --outputs-file cdk-outputs.json` wrote; against `npm start` it takes what that
 * printed; with `--local` alone it starts the local stack in this process. Then: connect over
 * WebSocket, run and stream, pause, approve over HTTP, approve over the approvals queue, invoke —
 * one pass/fail line per step with its time; exit 1 if any step failed.
 *
 *   npm run smoke -- --token $TOKEN [--outputs cdk-outputs.json] [--stack AgentKernel]
 *   npm run smoke -- --local --http <url> --ws <url> --approvals <queue-url> --token <token>
 *   npm run smoke -- --local
 *
 * Options: --agent (demo), --principal (the token's `sub`), --budget <ms per wait> (60000).
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sendApproval } from './approve.js';
import { parseFlags, runCommand } from './cli.js';
import { formatReport, runSmoke, type SmokeTarget } from './smoke-steps.js';

const USAGE = `usage: npm run smoke -- --token <jwt> [--outputs cdk-outputs.json] [--stack <name>]
       npm run smoke -- --local [--http <url> --ws <url> --approvals <queue-url> --token <jwt> [--stream <url>]]`;

type Flags = Record<string, string | boolean | undefined>;

async function main(): Promise<number> {
  const parsed = parseFlags(
    process.argv.slice(2),
    {
      local: { type: 'boolean' },
      outputs: { type: 'string' },
      stack: { type: 'string' },
      http: { type: 'string' },
      ws: { type: 'string' },
      approvals: { type: 'string' },
      stream: { type: 'string' },
      token: { type: 'string' },
      agent: { type: 'string' },
      principal: { type: 'string' },
      budget: { type: 'string' },
    },
    USAGE,
    false,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  const budget = Number(values.budget ?? 60_000);
  const stops: (() => Promise<void>)[] = [];
  try {
    const target = values.local
      ? values.http
        ? againstNpmStart(values)
        : await inProcess(values, stops)
      : await againstAws(values, stops);
    console.log(`smoke: ${target.httpUrl} and ${target.wsUrl}, agent ${target.agent}`);
    const results = await runSmoke(target, budget);
    console.log(formatReport(results));
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  } catch (err) {
    console.error(`smoke: ${(err as Error).message}\n${USAGE}`);
    return 2;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

/** `npm start`'s printed URLs and token: its queue is local SQS; invoke has no network endpoint. */
function againstNpmStart(flags: Flags): SmokeTarget {
  const token = required(flags, 'token');
  const queue = required(flags, 'approvals');
  return {
    httpUrl: required(flags, 'http'),
    wsUrl: required(flags, 'ws'),
    token,
    principal: principalOf(flags, token),
    agent: (flags.agent as string | undefined) ?? 'demo',
    sendApproval: (message) => sendApproval(queue, message),
    invoke:
      'npm start serves no Lambda Invoke endpoint (`npm run smoke -- --local` invokes in-process)',
    // npm start prints the Stream URL; its stream function always serves the playground.
    stream:
      typeof flags.stream === 'string'
        ? { url: flags.stream.replace(/\/runs$/, ''), playground: true }
        : 'no --stream <url> given (npm start prints it as Stream URL)',
  };
}

/** The local stack in this process: everything `npm start` serves, and the invoke function too. */
async function inProcess(flags: Flags, stops: (() => Promise<void>)[]): Promise<SmokeTarget> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const { startLocalStack } = await import('./stack.js');
  const stack = await startLocalStack({ port: 0 });
  stops.push(stack.stop);
  return {
    httpUrl: stack.httpUrl,
    wsUrl: stack.wsUrl,
    token: stack.token,
    principal: principalOf(flags, stack.token),
    agent: (flags.agent as string | undefined) ?? 'demo',
    sendApproval: (message) => sendApproval(stack.queues.approvals, message),
    invoke: stack.invoke,
    stream: { url: stack.streamUrl, playground: true },
  };
}

/** The deployed stack's outputs; SQS and Lambda with the default credential chain. */
async function againstAws(flags: Flags, stops: (() => Promise<void>)[]): Promise<SmokeTarget> {
  const file = (flags.outputs as string | undefined) ?? 'cdk-outputs.json';
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const name = (flags.stack as string | undefined) ?? Object.keys(all)[0] ?? '';
  const outputs = all[name];
  if (!outputs) throw new Error(`${file} has no stack "${name}"`);
  const output = (key: string) => {
    const value = outputs[key];
    if (!value) throw new Error(`${file}: stack ${name} has no output ${key}`);
    return value;
  };
  const token = required(flags, 'token', process.env.AGENT_KERNEL_TOKEN);
  const queue = output('ApprovalsQueueUrl');
  const region = /sqs\.([a-z0-9-]+)\.amazonaws\.com/.exec(queue)?.[1] ?? process.env.AWS_REGION;
  const sqs = new SQSClient(region ? { region } : {});
  stops.push(async () => sqs.destroy());
  const fn = outputs.InvokeFunctionName;
  return {
    httpUrl: output('HttpUrl'),
    wsUrl: output('WebSocketUrl'),
    token,
    principal: principalOf(flags, token),
    agent: (flags.agent as string | undefined) ?? 'demo',
    sendApproval: async (message) => {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queue, MessageBody: JSON.stringify(message) }),
      );
    },
    invoke: fn
      ? (payload) =>
          invokeLambda(
            fn,
            () => sqs.config.region(),
            () => sqs.config.credentials(),
            payload,
          )
      : 'the stack has no InvokeFunctionName output (invoke function not deployed)',
    stream: outputs.StreamUrl
      ? { url: outputs.StreamUrl, playground: Boolean(outputs.PlaygroundUrl) }
      : 'the stack has no StreamUrl output',
  };
}

function required(flags: Flags, key: string, fallback?: string): string {
  const value = (flags[key] as string | undefined) ?? fallback;
  if (!value) throw new Error(`--${key} is required`);
  return value;
}

/** The token's `sub` (unverified: the APIs verify it), unless --principal names another. */
function principalOf(flags: Flags, token: string): string {
  if (typeof flags.principal === 'string') return flags.principal;
  const payload = token.split('.')[1] ?? '';
  const sub = (
    JSON.parse(Buffer.from(payload, 'base64url').toString('utf8') || '{}') as {
      sub?: unknown;
    }
  ).sub;
  if (typeof sub !== 'string') throw new Error('the token has no sub: pass --principal');
  return sub;
}

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/**
 * Lambda's Invoke API, signed with SigV4 by hand: @aws-sdk/client-lambda is not a dependency,
 * and this one request does not justify it. Function errors come back as `x-amz-function-error`.
 */
async function invokeLambda(
  name: string,
  regionOf: () => Promise<string>,
  credentialsOf: () => Promise<Credentials>,
  payload: unknown,
): Promise<unknown> {
  const region = await regionOf();
  const creds = await credentialsOf();
  const host = `lambda.${region}.amazonaws.com`;
  const path = `/2015-03-31/functions/${encodeURIComponent(name)}/invocations`;
  const body = JSON.stringify(payload);
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { host, 'x-amz-date': amzDate };
  if (creds.sessionToken) headers['x-amz-security-token'] = creds.sessionToken;
  const names = Object.keys(headers).sort();
  const canonical = [
    'POST',
    path,
    '',
    ...names.map((h) => `${h}:${headers[h]}`),
    '',
    names.join(';'),
    sha256(body),
  ].join('\n');
  const scope = `${day}/${region}/lambda/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key: Buffer = Buffer.from(`AWS4${creds.secretAccessKey}`);
  for (const part of [day, region, 'lambda', 'aws4_request']) key = hmac(key, part);
  const signature = hmac(key, toSign).toString('hex');
  const res = await fetch(`https://${host}${path}`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
    },
    body,
  });
  const text = await res.text();
  const failed = res.headers.get('x-amz-function-error');
  if (!res.ok || failed)
    throw new Error(`Invoke ${res.status} ${failed ?? ''}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

await runCommand(main);
