/**
 * `npm run approve -- [--api <url> --token <token>] <queue-url> <sessionId> <runId> <callId>
 * [approved|denied] [principal]`: puts one decision on the local approvals queue (printed by
 * `npm start`), as a back-office system would on AWS. The principal defaults to `developer`, the
 * owner behind the dev token. With the HTTP API and a token of the session's owner (flags, or
 * AGENT_KERNEL_API_URL and AGENT_KERNEL_TOKEN) it first checks the run waits for that decision,
 * then waits for the outcome and prints it; a decision the stack refuses fails in one line.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ApprovalMessageSchema } from '../transport/protocol.js';
import { CliError, isUnreachable, parseFlags, runCommand, UsageError } from './cli.js';
import { localSqsClient } from './sqs.js';

export async function sendApproval(queueUrl: string, message: unknown): Promise<void> {
  const body = ApprovalMessageSchema.parse(message);
  const sqs = localSqsClient(new URL(queueUrl).origin);
  try {
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }),
    );
  } finally {
    sqs.destroy();
  }
}

const USAGE =
  'usage: npm run approve -- [--api <http-api-url> --token <token>] <approvals-queue-url> ' +
  '<sessionId> <runId> <callId> [approved|denied] [principal]';

interface RunView {
  status: string;
  updatedAt?: number;
  reply?: { text?: string; interruptions?: { id: string; name?: string }[] };
  error?: { code: string; message: string };
}

interface Api {
  url: string;
  token: string;
}

/** How long to wait for the stack to act on the decision before calling it refused. */
const WAIT_MS = Number(process.env.AGENT_KERNEL_APPROVE_WAIT_MS ?? 30_000);

async function main(argv: string[]): Promise<number> {
  const parsed = parseFlags(
    argv,
    { api: { type: 'string' }, token: { type: 'string' } },
    `${USAGE}\n  --api, --token: the HTTP API and a token of the session's owner (or AGENT_KERNEL_API_URL, AGENT_KERNEL_TOKEN): check the run waits for the call, then wait for its outcome`,
  );
  if (!parsed) return 0;
  const api = apiOf(parsed.values);
  const [
    queueUrl,
    sessionId,
    runId,
    callId,
    status = 'approved',
    principal = 'developer',
    ...extra
  ] = parsed.positionals;
  if (!queueUrl || !sessionId || !runId || !callId) {
    throw new UsageError(
      'missing arguments: <approvals-queue-url> <sessionId> <runId> <callId>',
      USAGE,
    );
  }
  if (!['approved', 'denied'].includes(status)) {
    throw new UsageError(`the decision is approved or denied, not ${status}`, USAGE);
  }
  if (extra.length > 0) throw new UsageError(`unexpected: ${extra[0]}`, USAGE);
  const before = api ? await pausedOn(api, sessionId, runId, callId) : undefined;
  const message = { sessionId, runId, principal, decisions: [{ id: callId, status }] };
  await sendApproval(queueUrl, message).catch((err: unknown) => {
    if (!isUnreachable(err)) throw err;
    throw new CliError(
      'queue-unreachable',
      `nothing answers at ${new URL(queueUrl).origin} (the approvals queue's SQS)`,
      'is `npm start` running? Use the approvals URL it printed.',
    );
  });
  console.log(`sent: ${status} ${callId} of run ${runId}`);
  if (!api || !before) {
    console.log('(not waiting for the outcome: add --api <HTTP API URL> --token <token>)');
    return 0;
  }
  return printOutcome(await outcome(api, sessionId, runId, callId, before));
}

/** `--api`/`--token`, else the environment. */
function apiOf(flags: { api?: string; token?: string }): Api | undefined {
  const url = flags.api ?? process.env.AGENT_KERNEL_API_URL;
  const token = flags.token ?? process.env.AGENT_KERNEL_TOKEN;
  return url && token ? { url: url.replace(/\/$/, ''), token } : undefined;
}

async function getRun(api: Api, sessionId: string, runId: string): Promise<RunView> {
  const path = `/sessions/${encodeURIComponent(sessionId)}/runs/${encodeURIComponent(runId)}`;
  const res = await fetch(`${api.url}${path}`, {
    headers: { authorization: `Bearer ${api.token}` },
  }).catch((err: unknown) => {
    throw new CliError(
      'api-unreachable',
      `nothing answers at ${api.url} (${(err as Error).message})`,
      'is `npm start` running? Use the HTTP API URL it printed.',
    );
  });
  const body = (await res.json().catch(() => ({}))) as RunView & { message?: string };
  if (res.status === 401) {
    throw new CliError(
      'unauthorized',
      'the HTTP API refused the token',
      'use the TOKEN `npm start` printed.',
    );
  }
  if (res.status !== 200) {
    throw new CliError(
      'run-not-found',
      `run ${runId} of session ${sessionId}: ${body.message ?? `HTTP ${res.status}`}`,
      'take the ids from the run-paused event (sessionId, runId, interruptions[].id).',
    );
  }
  return body;
}

/** The run as it waits for this decision; refuses early what the stack would refuse. */
async function pausedOn(api: Api, sessionId: string, runId: string, callId: string) {
  const run = await getRun(api, sessionId, runId);
  const pending = run.reply?.interruptions?.map((i) => i.id) ?? [];
  if (run.status !== 'paused' || !pending.includes(callId)) {
    throw new CliError(
      'not-waiting',
      run.status === 'paused'
        ? `run ${runId} waits for ${pending.join(', ')}, not for ${callId}`
        : `run ${runId} is ${run.status}, not paused: there is nothing to decide`,
      'take the call id from the run-paused event’s interruptions[].id.',
    );
  }
  return run;
}

/** Polls the run until the decision moved it on; refused when it still waits after WAIT_MS. */
async function outcome(
  api: Api,
  sessionId: string,
  runId: string,
  callId: string,
  before: RunView,
): Promise<RunView> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const run = await getRun(api, sessionId, runId);
    const moved = run.updatedAt !== before.updatedAt || run.status !== 'paused';
    if (
      moved &&
      (run.status === 'completed' || run.status === 'failed' || run.status === 'paused')
    ) {
      return run;
    }
  }
  throw new CliError(
    'decision-refused',
    `the stack did not act on ${callId} within ${WAIT_MS / 1000} s: run ${runId} is still paused`,
    'the decision was refused: the stack logs why (WARN "approval refused"); a principal other ' +
      'than the session’s owner must be listed in APPROVER_PRINCIPALS.',
  );
}

function printOutcome(run: RunView): number {
  if (run.status === 'completed') {
    console.log(`completed: ${run.reply?.text ?? ''}`);
    return 0;
  }
  if (run.status === 'paused') {
    const ids = run.reply?.interruptions?.map((i) => `${i.id}${i.name ? ` (${i.name})` : ''}`);
    console.log(`paused again, waiting for: ${ids?.join(', ') ?? '?'}`);
    return 0;
  }
  console.error(`error: the run failed: ${run.error?.message ?? '?'} (${run.error?.code ?? '?'})`);
  return 1;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  await runCommand(() => main(process.argv.slice(2)));
}
