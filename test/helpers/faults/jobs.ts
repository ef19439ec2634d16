import { readFileSync } from 'node:fs';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RecordedRequest, ScriptedTurn } from '../../../lib/testing/index.js';

/**
 * The `writer` agent's model, stateless so any number of retries see the same script: the
 * first request of a turn asks for `append_line` with the job's tag (`job-<n>` in the input),
 * the request carrying the tool's output is answered with text.
 */
export function writerModel(request: RecordedRequest): ScriptedTurn {
  const input = JSON.stringify(request.body?.input ?? request.body?.messages ?? '');
  const tag = /job-[\w-]+/.exec(input)?.[0] ?? 'job-unknown';
  if (input.includes('function_call_output')) return { text: `Wrote ${tag}.` };
  return { toolCalls: [{ name: 'append_line', arguments: { line: tag } }] };
}

/** A run job of the `writer` agent for `tag`, its own session, answered to `connectionId`. */
export function writerJob(tag: string, connectionId?: string) {
  return {
    kind: 'run' as const,
    requestId: `req-${tag}`,
    principal: 'alice',
    agent: 'writer',
    sessionId: `s-${tag}`,
    runId: `run-${tag}`,
    input: `Please write ${tag}`,
    ...(connectionId ? { connectionId } : {}),
    enqueuedAt: Date.now(),
  };
}

/** Puts a job on the FIFO run queue as ws-message does (group = session, dedup = request). */
export async function enqueue(
  sqs: SQSClient,
  queueUrl: string,
  job: { sessionId: string; requestId: string },
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(job),
      MessageGroupId: job.sessionId,
      MessageDeduplicationId: job.requestId,
    }),
  );
}

/** Lines of the effects file: one per tool call that really ran. */
export function effects(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/**
 * What a client keeps of the `events` messages it received, dropping a repeated (runId, seq) as
 * the protocol says; a repeated (runId, seq) with other content is an error of the server.
 */
export function clientView(messages: any[]): { events: any[]; terminals: any[]; seqs: number[] } {
  const seen = new Map<string, string>();
  const events: any[] = [];
  const seqs: number[] = [];
  for (const message of messages) {
    const key = `${message.runId}.${message.seq}`;
    const body = JSON.stringify(message.events);
    const before = seen.get(key);
    if (before !== undefined) {
      if (before !== body) throw new Error(`(runId, seq) ${key} was sent with two contents`);
      continue;
    }
    seen.set(key, body);
    seqs.push(message.seq);
    events.push(...message.events);
  }
  return { events, terminals: events.filter((e) => TERMINAL.has(e.type)), seqs };
}
