/**
 * One "worker instance" in a process of its own, so a test can SIGKILL it at a chosen moment: a
 * Runtime on DynamoDB (sessions, paused runs, lease, run journal) running the ChatRunner, whose
 * tool appends a line to EFFECT_FILE (the real side effect the tests count). Prints one
 * `RESULT <json>` line: the reply, or the error's code and message.
 */
import { appendFileSync } from 'node:fs';
import * as z from 'zod';
import { Agent, type Decision, type JournalRecords, Runtime } from '../../../lib/core/index.js';
import {
  createDynamoClient,
  DynamoPausedRunStore,
  DynamoRunJournalStore,
  DynamoSessionLock,
  DynamoSessionStore,
} from '../../../lib/stores/index.js';
import { defineTool, Executor, pauseForApproval } from '../../../lib/tools/index.js';
import { ChatRunner } from './chat-runner.js';

const env = process.env;
const kill = env.KILL ?? '';
const die = () => process.kill(process.pid, 'SIGKILL');

/**
 * Dies around a write that carries a finished call's outcome (the next call's start, or the
 * runner's last write): `before-fold` just before it (the tool ran, its outcome is written
 * nowhere), `after-finish` just after it (the outcome is in the journal, the session not saved).
 */
class DyingJournal extends DynamoRunJournalStore {
  override async startCall(s: string, r: string, c: string, t: string, records?: JournalRecords) {
    dieIfCarried(records, 'before-fold');
    const started = await super.startCall(s, r, c, t, records);
    dieIfCarried(records, 'after-finish');
    return started;
  }

  override async record(s: string, r: string, records: JournalRecords) {
    dieIfCarried(records, 'before-fold');
    await super.record(s, r, records);
    dieIfCarried(records, 'after-finish');
  }
}

function dieIfCarried(records: JournalRecords | undefined, at: string): void {
  if (kill === at && (records?.outcomes?.length ?? 0) > 0) die();
}

const appendLine = defineTool({
  name: 'append_line',
  description: 'Appends a line to the effect file',
  input: z.object({ text: z.string() }),
  confirm: env.CONFIRM === '1',
  ...(env.ON_UNKNOWN === 'pause' ? { effects: { onUnknownOutcome: 'pause' as const } } : {}),
  handler: ({ text }, ctx) => {
    appendFileSync(env.EFFECT_FILE as string, `${text} ${ctx.idempotencyKey}\n`);
    if (kill === 'during-tool') die();
    return { appended: text };
  },
});

async function main(): Promise<unknown> {
  const client = createDynamoClient({ endpoint: env.DYNAMO_ENDPOINT, region: 'us-east-1' });
  const stores = { client, tableName: env.TABLE_NAME as string };
  const runner = new ChatRunner(
    [appendLine],
    new Executor({ approval: pauseForApproval }),
    env.MODEL_URL as string,
  );
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(stores),
    pausedRuns: new DynamoPausedRunStore(stores),
    resumeClaimMs: Number(env.CLAIM_MS ?? 60_000),
    // Short, so the next instance takes over a killed one's lease quickly.
    lock: new DynamoSessionLock({ ...stores, leaseMs: 1_500, retryMs: 50, maxRetryMs: 200 }),
    ...(env.NO_JOURNAL === '1' ? {} : { journal: new DyingJournal(stores) }),
    // Runs after the runner and before the session save: the whole turn done, nothing stored.
    postHooks: [{ name: 'die', onRun: () => void (kill === 'before-save' ? die() : undefined) }],
    agents: [new Agent({ name: 'chat', runner, native: null })],
  });
  const sessionId = env.SESSION_ID as string;
  const runId = env.RUN_ID as string;
  if (env.MODE === 'resume') {
    const decisions = JSON.parse(env.DECISIONS as string) as Decision[];
    return runtime.resume(sessionId, runId, decisions);
  }
  if (env.STREAM === '1') {
    // The run as a stream: its tool results come back beside the reply (`results`).
    const results: unknown[] = [];
    let reply: unknown;
    for await (const event of runtime.stream('chat', sessionId, env.INPUT ?? 'append hello', {
      runId,
    })) {
      if (event.type === 'tool-call-result') results.push(event);
      if (event.type === 'run-finished') reply = { ...event.reply, results };
    }
    return reply;
  }
  return runtime.run('chat', sessionId, env.INPUT ?? 'append hello', { runId });
}

// Under childPool (test/helpers/served-child.ts) the process serves the next command instead of
// exiting, so the module's evaluation ends with the RESULT line.
const served = env.AK_SERVED_CHILD === '1';
await main().then(
  (reply) => {
    process.stdout.write(`RESULT ${JSON.stringify({ ok: true, reply })}\n`);
    if (!served) process.exit(0);
  },
  (err: { code?: string; message?: string }) => {
    process.stdout.write(
      `RESULT ${JSON.stringify({ ok: false, code: err.code, message: err.message })}\n`,
    );
    if (!served) process.exit(0);
  },
);
