import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { ApprovalMessage } from '../transport/protocol.js';
import { streamSteps } from './smoke-stream.js';

/** A deployed or local stack as the smoke check reaches it: two APIs, a queue, maybe invoke. */
export interface SmokeTarget {
  readonly httpUrl: string;
  readonly wsUrl: string;
  readonly token: string;
  /** Who the token's holder is (its `sub`): the approvals message decides as them. */
  readonly principal: string;
  readonly agent: string;
  sendApproval(message: ApprovalMessage): Promise<void>;
  /** The invoke function, directly; a string says why it cannot be reached from here. */
  readonly invoke: ((payload: unknown) => Promise<unknown>) | string;
  /** The StreamUrl, and whether it serves the playground; a string says why it is not checked. */
  readonly stream?: { url: string; playground: boolean } | string;
}

export interface StepResult {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  ms: number;
  detail: string;
}

/** The demo agent's prompts: one answered with a tool call, one paused for approval. */
const ASK = 'weather in Paris?';
const BOOK = 'book a table for 2 at 8pm';

/** A run's terminal event as the fan-out posts it (`interruptions` on run-paused). */
export type TerminalEvent = { type: string; runId?: string; interruptions: { id: string }[] };
type Message = { type?: string; runId?: string; events?: { type: string; runId?: string }[] };

/** A WebSocket client keeping every message; a step (or bench/cost) waits for the one it needs. */
export class SmokeClient {
  readonly seen: Message[] = [];
  #waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.seen.push(JSON.parse(String(data)) as Message);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  async until<T>(find: (seen: Message[]) => T | undefined, what: string, ms: number): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = find(this.seen);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The terminal event of `runId` (finished, paused or error) as the fan-out posted it. */
  terminal(runId: string, ms: number) {
    return this.until(
      (seen) =>
        seen
          .flatMap((m) => (m.type === 'events' ? (m.events ?? []) : []))
          .find(
            (e) =>
              e.runId === runId && ['run-finished', 'run-paused', 'run-error'].includes(e.type),
          ) as TerminalEvent | undefined,
      `terminal event of run ${runId}`,
      ms,
    );
  }

  /** Sends a run and answers its runId once `accepted` arrives (an `error` fails the step). */
  async run(sessionId: string, input: string, agent: string, ms: number): Promise<string> {
    const requestId = `smoke-${randomBytes(6).toString('hex')}`;
    this.ws.send(JSON.stringify({ action: 'run', requestId, agent, sessionId, input }));
    const answer = await this.until(
      (seen) => seen.find((m) => (m as { requestId?: string }).requestId === requestId),
      `answer to ${requestId}`,
      ms,
    );
    if (answer.type !== 'accepted') throw new Error(`run refused: ${JSON.stringify(answer)}`);
    return answer.runId as string;
  }
}

/** Runs every step in order, each timed; a failed step does not stop the independent ones. */
export async function runSmoke(target: SmokeTarget, budgetMs = 60_000): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const session = (tag: string) => `smoke-${tag}-${randomBytes(6).toString('hex')}`;
  let client: SmokeClient | undefined;
  const step = async (name: string, body: () => Promise<string>) => {
    const started = performance.now();
    try {
      const detail = await body();
      results.push({ name, status: 'pass', ms: performance.now() - started, detail });
    } catch (err) {
      const detail = (err as Error).message;
      results.push({ name, status: 'fail', ms: performance.now() - started, detail });
    }
  };
  const connected = () => {
    if (!client) throw new Error('needs the WebSocket connection (connect failed)');
    return client;
  };
  /** A run that pauses for the booking's approval: its runId and the interruption's id. */
  const paused = async (sessionId: string) => {
    const c = connected();
    const runId = await c.run(sessionId, BOOK, target.agent, budgetMs);
    const end = await c.terminal(runId, budgetMs);
    if (end.type !== 'run-paused') throw new Error(`expected run-paused, got ${end.type}`);
    return { runId, callId: end.interruptions[0]!.id };
  };

  await step('connect (WebSocket)', async () => {
    const ws = new WebSocket(`${target.wsUrl}?token=${encodeURIComponent(target.token)}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    client = new SmokeClient(ws);
    return target.wsUrl;
  });
  await step('run and stream', async () => {
    const c = connected();
    const runId = await c.run(session('run'), ASK, target.agent, budgetMs);
    const end = await c.terminal(runId, budgetMs);
    if (end.type !== 'run-finished') throw new Error(`expected run-finished, got ${end.type}`);
    const mine = c.seen.filter((m) => m.type === 'events' && m.runId === runId);
    const events = mine.flatMap((m) => m.events ?? []);
    const deltas = events.filter((e) => e.type === 'text-delta').length;
    const tools = events.filter((e) => e.type.startsWith('tool-')).length;
    if (deltas === 0) throw new Error('finished without a streamed text-delta');
    return `${events.length} events in ${mine.length} messages, ${deltas} text deltas, ${tools} tool events`;
  });
  await step('pause (tool approval)', async () => {
    const { runId, callId } = await paused(session('pause'));
    return `run ${runId} paused on ${callId}`;
  });
  await step('approve over HTTP', async () => {
    const sessionId = session('http');
    const { runId, callId } = await paused(sessionId);
    const path = `/sessions/${sessionId}/runs/${runId}/decisions`;
    const res = await fetch(`${target.httpUrl.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ id: callId, status: 'approved' }] }),
    });
    const body = (await res.json()) as { status?: string; text?: string };
    if (res.status !== 200 || body.status !== 'completed') {
      throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    return `200 completed: ${JSON.stringify(body.text?.slice(0, 60))}`;
  });
  await step('approve over the approvals queue', async () => {
    const sessionId = session('queue');
    const { runId, callId } = await paused(sessionId);
    const c = connected();
    const before = c.seen.length;
    await target.sendApproval({
      sessionId,
      runId,
      principal: target.principal,
      decisions: [{ id: callId, status: 'approved' }],
    });
    const end = await c.until(
      (seen) =>
        seen
          .slice(before)
          .flatMap((m) => m.events ?? [])
          .find((e) => e.runId === runId && e.type !== 'run-paused' && isTerminal(e.type)),
      `the resumed run's end`,
      budgetMs,
    );
    if (end.type !== 'run-finished') throw new Error(`expected run-finished, got ${end.type}`);
    return `run ${runId} finished after the queued decision`;
  });
  const { stream } = target;
  if (typeof stream === 'object') {
    const steps = streamSteps({ streamUrl: stream.url, playground: stream.playground, ...target });
    for (const [name, body] of steps) await step(name, body);
  } else {
    const detail = stream ?? 'no StreamUrl given';
    for (const name of ['stream (SSE)', 'AG-UI (SSE)']) {
      results.push({ name, status: 'skip', ms: 0, detail });
    }
  }
  if (typeof target.invoke === 'string') {
    results.push({ name: 'invoke (direct)', status: 'skip', ms: 0, detail: target.invoke });
  } else {
    const invoke = target.invoke;
    await step('invoke (direct)', async () => {
      const reply = (await invoke({
        action: 'run',
        agent: target.agent,
        sessionId: session('invoke'),
        input: ASK,
        principal: target.principal,
      })) as { status?: string; code?: string; message?: string };
      if (reply?.status !== 'completed') throw new Error(JSON.stringify(reply).slice(0, 300));
      return 'completed';
    });
  }
  client?.ws.close();
  return results;
}

function isTerminal(type: string): boolean {
  return ['run-finished', 'run-paused', 'run-error'].includes(type);
}

/** The report: one line per step with its time; the last line says whether all passed. */
export function formatReport(results: readonly StepResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.map(
    (r) =>
      `${r.status.toUpperCase().padEnd(4)}  ${r.name.padEnd(width)}  ${`${r.ms.toFixed(0)} ms`.padStart(8)}  ${r.detail}`,
  );
  const failed = results.filter((r) => r.status === 'fail').length;
  const skipped = results.filter((r) => r.status === 'skip').length;
  lines.push(
    failed === 0
      ? `smoke: all ${results.length - skipped} steps passed${skipped ? `, ${skipped} skipped` : ''}`
      : `smoke: ${failed} of ${results.length} steps FAILED`,
  );
  return lines.join('\n');
}
