/**
 * bench/cost's child: one delivery mode (DELIVERY_MODE is read when the function modules load)
 * through the whole local stack, every billable request counted where it is made:
 * - Lambda: each function invocation and its wall time (LocalStackOptions.onInvoke);
 * - DynamoDB: every request of the stores' DynamoDBDocumentClient (and raw DynamoDBClient), sent
 *   with ReturnConsumedCapacity=TOTAL; the RRU/WRU dynalite reports (a refused conditional write,
 *   which carries none, counts 1 WRU);
 * - SQS: every request of every SQSClient, the pollers' included (empty receives apart: on AWS the
 *   event source's idle polls are a fixed cost, not a per-turn one);
 * - API Gateway: PostToConnection calls (messages out), frames the client sent (messages in),
 *   connection minutes (open to close, as the client saw them).
 * The model streams at a real model's pace (a proxy in front of the scripted model server waits
 * `ttftMs` before a response and releases the answer's deltas at `tokensPerSecond`): the worker's
 * measured wall time includes that wait, which Lambda bills, and the event batches are as many as
 * the batcher's 50 ms window makes of that stream.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import WebSocket from 'ws';
import { demoResponder } from '../examples/demo/offline-model.js';
import { SmokeClient, type TerminalEvent } from '../lib/local/smoke-steps.js';
import { startLocalStack } from '../lib/local/stack.js';
import {
  type RecordedRequest,
  type ScriptedTurn,
  startScriptedModelServer,
} from '../lib/testing/index.js';
import { startPacingProxy } from './pacing-proxy.js';

export interface Counts {
  lambda: Record<string, { invocations: number; ms: number }>;
  rru: number;
  wru: number;
  /** WRU of session saves (head and state chunks): the unit of a "session write". */
  sessionWriteWru: number;
  /** WRU of the stored events kept for reconnects (`EVENTS#` items, issue 30). */
  eventsWru: number;
  sessionSaves: number;
  /** Billable SQS requests by queue (the URL's last segment); empty receives apart. */
  sqs: Record<string, number>;
  idleReceives: number;
  postToConnection: number;
  wsInbound: number;
  httpRequests: number;
  connectionMs: number;
}

export interface Measured {
  mode: string;
  turns: number;
  paused: number;
  connections: number;
  /** Counted over the turns (connect to disconnect). */
  turnsCounts: Counts;
  /** Counted over `polls` GET /sessions/{id} (the polling design's unit). */
  pollCounts: Counts;
  polls: number;
  /** Mean wall time of a turn at the client (run sent → run-finished, the approval's wait aside). */
  turnMs: number;
  /**
   * Peak RSS (MB) of this process over the turns: every function of the local stack, dynalite and
   * the SQS emulator in one process, so an upper bound of one function's peak.
   */
  peakRssMb: number;
  /** RSS (MB) once the stack is up, before the first turn. */
  idleRssMb: number;
}

const TOKEN_WIDTH = 6;
const empty = (): Counts => ({
  lambda: {},
  rru: 0,
  wru: 0,
  sessionWriteWru: 0,
  eventsWru: 0,
  sessionSaves: 0,
  sqs: {},
  idleReceives: 0,
  postToConnection: 0,
  wsInbound: 0,
  httpRequests: 0,
  connectionMs: 0,
});
let counts = empty();

type Send = (this: unknown, command: any, ...rest: unknown[]) => Promise<any>;
function wrapSend(proto: { send: Send }, count: (command: any, output: any, error: any) => void) {
  const original = proto.send;
  proto.send = async function (this: unknown, command: any, ...rest: unknown[]) {
    try {
      const output = await original.call(this, command, ...rest);
      count(command, output, undefined);
      return output;
    } catch (err) {
      count(command, undefined, err);
      throw err;
    }
  };
}

const DATA = /^(Get|Put|Update|Delete|Query|Scan|BatchWrite|BatchGet)(Item)?Command$/;
const READS = /^(Get|Query|Scan|BatchGet)/;

function countDynamo(command: any, output: any, error: any): void {
  const name: string = command.constructor.name;
  if (!DATA.test(name)) return;
  const consumed = [output?.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[];
  const units = consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0) || (error ? 1 : 0);
  if (READS.test(name)) {
    counts.rru += units;
    return;
  }
  counts.wru += units;
  const item = command.input.Item ?? command.input.Key;
  const sk = String(item?.sk ?? '');
  if (sk.startsWith('EVENTS#')) counts.eventsWru += units;
  if (String(item?.pk ?? '').startsWith('SESSION#') && (sk === 'META' || sk.startsWith('STATE#'))) {
    counts.sessionWriteWru += units;
    if (sk === 'META') counts.sessionSaves++;
  }
}

function patchClients(): void {
  for (const proto of [DynamoDBDocumentClient.prototype, DynamoDBClient.prototype] as any[]) {
    wrapSend(proto, countDynamo);
    const send: Send = proto.send;
    proto.send = function (this: unknown, command: any, ...rest: unknown[]) {
      if (DATA.test(command.constructor.name)) command.input.ReturnConsumedCapacity = 'TOTAL';
      return send.call(this, command, ...rest);
    };
  }
  wrapSend(SQSClient.prototype as any, (command, output) => {
    const name: string = command.constructor.name;
    const queue = String(command.input?.QueueUrl ?? '')
      .split('/')
      .pop();
    if (!queue) return;
    if (name === 'ReceiveMessageCommand' && !(output?.Messages?.length > 0)) counts.idleReceives++;
    else counts.sqs[queue] = (counts.sqs[queue] ?? 0) + 1;
  });
  wrapSend(ApiGatewayManagementApiClient.prototype as any, (command) => {
    if (command.constructor.name === 'PostToConnectionCommand') counts.postToConnection++;
  });
}

/** The demo's tools, then an answer of `tokens` deltas: every turn is one tool call and one answer. */
function responder(tokens: number) {
  const answer = Array.from({ length: tokens }, (_, i) => ` t${i.toString(36).padStart(4, '0')}`);
  return (request: RecordedRequest) => {
    const input = Array.isArray(request.body?.input) ? request.body.input : [];
    if (input.at(-1)?.type === 'function_call_output') return { text: answer.join('') };
    return (demoResponder as (r: RecordedRequest) => ScriptedTurn)(request);
  };
}

export async function measure(options: {
  mode: string;
  turns: number;
  tokens: number;
  pauseEvery: number;
  turnsPerConnection: number;
  polls: number;
  ttftMs: number;
  tokensPerSecond: number;
}): Promise<Measured> {
  patchClients();
  const model = await startScriptedModelServer({
    fallback: responder(options.tokens),
    chunkSize: TOKEN_WIDTH,
  });
  // Between the functions and the scripted model: a first-byte delay, then paced text deltas.
  const pacer = await startPacingProxy(model.url);
  pacer.firstByteMs = options.ttftMs;
  pacer.pace = options.tokensPerSecond;
  process.env.OPENAI_BASE_URL = pacer.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  // The figures of docs/benchmarks.md were measured without fair use; its counters' cost per
  // turn is bench/quota-cost.ts's (npm run bench:quotas).
  process.env.QUOTAS ??= 'off';
  const stack = await startLocalStack({
    port: 0,
    onInvoke: (name, ms) => {
      const entry = counts.lambda[name] ?? { invocations: 0, ms: 0 };
      counts.lambda[name] = entry;
      entry.invocations++;
      entry.ms += ms;
    },
  });
  const idleRssMb = process.memoryUsage().rss / 2 ** 20;
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    counts = empty();
    let paused = 0;
    let connections = 0;
    let turnMs = 0;
    const sessions: string[] = [];
    for (let done = 0; done < options.turns; connections++) {
      const ws = new WebSocket(`${stack.wsUrl}?token=${stack.token}`);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const opened = performance.now();
      const client = new SmokeClient(ws);
      const send = ws.send.bind(ws);
      ws.send = (data: any, ...rest: any[]) => {
        counts.wsInbound++;
        return (send as any)(data, ...rest);
      };
      const sessionId = `cost-${randomBytes(6).toString('hex')}`;
      sessions.push(sessionId);
      for (let i = 0; i < options.turnsPerConnection && done < options.turns; i++, done++) {
        const pause = done % options.pauseEvery === options.pauseEvery - 1;
        const input = pause ? 'book a table for 2 at 8pm' : 'weather in Paris?';
        const started = performance.now();
        const runId = await client.run(sessionId, input, 'demo', 60_000);
        let end = await client.terminal(runId, 60_000);
        if (pause && end.type === 'run-paused') {
          paused++;
          // The time a person takes to decide is not the turn's.
          turnMs += performance.now() - started;
          const resumed = performance.now();
          const before = client.seen.length;
          const decisions = [{ id: end.interruptions[0]!.id, status: 'approved' }];
          ws.send(
            JSON.stringify({
              action: 'resume',
              requestId: `r-${runId}`,
              sessionId,
              runId,
              decisions,
            }),
          );
          end = await client.until(
            (seen) =>
              seen
                .slice(before)
                .flatMap((m) => m.events ?? [])
                .find((e) => e.runId === runId && ['run-finished', 'run-error'].includes(e.type)) as
                | TerminalEvent
                | undefined,
            'resumed run end',
            60_000,
          );
          turnMs += performance.now() - resumed;
        } else turnMs += performance.now() - started;
        if (end.type !== 'run-finished') throw new Error(`turn ${done}: ${JSON.stringify(end)}`);
      }
      ws.close();
      counts.connectionMs += performance.now() - opened;
    }
    // Let the last deletes and the disconnect land.
    await sleep(2500);
    const turnsCounts = counts;
    counts = empty();
    for (let i = 0; i < options.polls; i++) {
      const sessionId = sessions[i % sessions.length] as string;
      counts.httpRequests++;
      const res = await fetch(`${stack.httpUrl}/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${stack.token}` },
      });
      if (res.status !== 200) throw new Error(`poll: ${res.status} ${await res.text()}`);
    }
    const pollCounts = counts;
    return {
      mode: options.mode,
      turns: options.turns,
      paused,
      connections,
      turnsCounts,
      pollCounts,
      polls: options.polls,
      turnMs: turnMs / options.turns,
      peakRssMb: Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20,
      idleRssMb,
    };
  } finally {
    clearInterval(sampler);
    await stack.stop();
    await pacer.close();
    await model.close();
  }
}
