/**
 * Terminal chat over the WebSocket API: `npm run chat`. With AGENT_KERNEL_WS_URL and
 * AGENT_KERNEL_TOKEN it connects there (e.g. to `npm start` or a deployment); otherwise it starts
 * the local stack in this process (offline unless OPENAI_API_KEY is set) and connects to that.
 * The agent is the stack's (`GET /agents` on AGENT_KERNEL_HTTP_URL, or the local stack's; `demo`
 * when there are several), or AGENT_KERNEL_AGENT. Each line is a `run`; it shows the session and
 * run ids; a paused run asks you to approve each tool call (or decide it from elsewhere with the
 * `npm run approve` line it prints, given AGENT_KERNEL_APPROVALS_QUEUE_URL or the local stack's
 * queue), then sends a `resume`.
 * Type `/exit` or press Ctrl+D to quit; Ctrl+C quits too (a run cannot be cancelled remotely).
 */
import { randomUUID } from 'node:crypto';
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import WebSocket from 'ws';
import type { StreamEvent } from '../../lib/core/events.js';
import type { Interruption } from '../../lib/core/requests.js';
import type { Decision } from '../../lib/core/runner.js';
import type {
  EventsMessage,
  ResumeMessage,
  RunMessage,
  ServerMessage,
} from '../../lib/transport/protocol.js';

const color = stdout.isTTY && !process.env.NO_COLOR;
const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
const red = (text: string) => (color ? `\x1b[31m${text}\x1b[39m` : text);
const interactive = stdin.isTTY === true;

// ---------------------------------------------------------------- where to connect

const remote = process.env.AGENT_KERNEL_WS_URL;
let stack:
  | {
      wsUrl: string;
      httpUrl: string;
      token: string;
      queues: { approvals: string };
      stop(): Promise<void>;
    }
  | undefined;
let wsUrl: string;
let token: string;
if (remote) {
  const given = process.env.AGENT_KERNEL_TOKEN;
  if (!given) {
    console.error(red('AGENT_KERNEL_WS_URL is set but AGENT_KERNEL_TOKEN is not.'));
    process.exit(2);
  }
  wsUrl = remote;
  token = given;
} else {
  // The handlers log through Powertools to stdout: keep the chat readable.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const { startLocalStack } = await import('../../lib/local/stack.js');
  stack = await startLocalStack();
  ({ wsUrl, token } = stack);
}

const url = new URL(wsUrl);
url.searchParams.set('token', token);
const ws = new WebSocket(url);
try {
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode} from ${wsUrl}`)),
    );
  });
} catch (err) {
  console.error(red(`✗ cannot connect: ${err instanceof Error ? err.message : String(err)}`));
  await stack?.stop();
  process.exit(1);
}

const offline = process.env.OPENAI_API_KEY === 'offline';
console.log(
  stack
    ? `Started the local stack in this process${offline ? ' (offline scripted model: try "weather in Paris?" or "book a table for 2 at 8pm")' : ''}; connected to ${wsUrl}. /exit quits.`
    : `Connected to ${wsUrl}. /exit quits.`,
);
const { agent: AGENT, why } = await pickAgent();
console.log(dim(`Agent: ${AGENT} (${why}).`));
const approvalsQueue = process.env.AGENT_KERNEL_APPROVALS_QUEUE_URL ?? stack?.queues.approvals;
/** The HTTP API: the local stack's, AGENT_KERNEL_HTTP_URL, or `npm start`'s (the WebSocket's port). */
const httpApi =
  process.env.AGENT_KERNEL_HTTP_URL ??
  stack?.httpUrl ??
  (['127.0.0.1', 'localhost'].includes(new URL(wsUrl).hostname)
    ? wsUrl.replace(/^ws/, 'http').replace(/\/$/, '')
    : undefined);

/**
 * AGENT_KERNEL_AGENT, else the stack's own (`GET /agents`): its only agent, or `demo` among
 * several, or the first. The HTTP API is the local stack's, AGENT_KERNEL_HTTP_URL, or the
 * WebSocket's origin on 127.0.0.1 (`npm start` serves both on one port).
 */
async function pickAgent(): Promise<{ agent: string; why: string }> {
  const named = process.env.AGENT_KERNEL_AGENT;
  if (named) return { agent: named, why: 'AGENT_KERNEL_AGENT' };
  const local = ['127.0.0.1', 'localhost'].includes(new URL(wsUrl).hostname);
  const http =
    process.env.AGENT_KERNEL_HTTP_URL ??
    stack?.httpUrl ??
    (local ? wsUrl.replace(/^ws/, 'http') : undefined);
  if (!http) return { agent: 'demo', why: 'default; set AGENT_KERNEL_HTTP_URL to ask the stack' };
  try {
    const response = await fetch(new URL('agents', `${http.replace(/\/$/, '')}/`), {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const { agents } = (await response.json()) as { agents: { name: string }[] };
    const names = agents.map((a) => a.name);
    const agent = names.length === 1 ? names[0] : names.includes('demo') ? 'demo' : names[0];
    if (!agent) return { agent: 'demo', why: 'the stack lists no agent' };
    const others = names.length > 1 ? `; also ${names.filter((n) => n !== agent).join(', ')}` : '';
    return { agent, why: `GET /agents${others} (AGENT_KERNEL_AGENT picks another)` };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { agent: 'demo', why: `default; GET /agents failed: ${reason}` };
  }
}

// ---------------------------------------------------------------- the server's messages

const sessionId = `chat-${randomUUID()}`;

/** How a run's part ends: each `run` or `resume` waits for one of these. */
type Outcome =
  | { kind: 'finished' }
  | { kind: 'paused'; runId: string; interruptions: Interruption[] }
  | { kind: 'failed' }
  | { kind: 'quit' };
let waiting: { requestId: string; resolve: (outcome: Outcome) => void } | undefined;
const settle = (outcome: Outcome) => {
  const current = waiting;
  waiting = undefined;
  current?.resolve(outcome);
};

/** Called with a run's id when a batch after its pause arrives (the question is then moot). */
let movedOn: ((runId: string) => void) | undefined;

/** Per run: the next `seq` to show and the batches that arrived early. Resumes keep the runId. */
const runs = new Map<string, { next: number; early: Map<number, EventsMessage> }>();
const calls = new Map<string, { name: string; args: string }>();
/** Arguments edited at an approval, by tool call id (our runners use it as the interruption id). */
const edits = new Map<string, string>();
let lineOpen = false;
const endLine = () => {
  if (lineOpen) stdout.write('\n');
  lineOpen = false;
};
const print = (text: string) => {
  endLine();
  stdout.write(`${text}\n`);
};

ws.on('message', (data) => {
  let message: ServerMessage;
  try {
    message = JSON.parse(String(data)) as ServerMessage;
  } catch {
    print(red(`✗ unreadable message from the server: ${short(String(data))}`));
    return;
  }
  if (message.type === 'error') {
    print(red(`✗ ${message.code}: ${message.message}`));
    if (waiting && (message.requestId === undefined || message.requestId === waiting.requestId)) {
      settle({ kind: 'failed' });
    }
  } else if (message.type === 'events' && message.sessionId === sessionId) {
    receive(message);
  }
  if (message.type === 'accepted' && message.sessionId === sessionId) {
    print(dim(`  session ${sessionId} · run ${message.runId}`));
  }
});

/** Shows batches in `seq` order; a batch seen before (queues deliver at least once) is dropped. */
function receive(message: EventsMessage): void {
  let run = runs.get(message.runId);
  if (!run) {
    run = { next: 0, early: new Map() };
    runs.set(message.runId, run);
  }
  if (message.seq < run.next || run.early.has(message.seq)) return;
  run.early.set(message.seq, message);
  // A new batch of a run we are asking about: someone else decided it and it went on.
  if (run.early.has(run.next)) movedOn?.(message.runId);
  for (let batch = run.early.get(run.next); batch; batch = run.early.get(run.next)) {
    run.early.delete(run.next);
    run.next += 1;
    for (const event of batch.events) show(event);
  }
}

function show(event: StreamEvent): void {
  if (event.type === 'text-delta') {
    stdout.write(event.delta);
    lineOpen = !event.delta.endsWith('\n');
  } else if (event.type === 'tool-call-start') {
    calls.set(event.toolCallId, { name: event.toolName, args: '' });
  } else if (event.type === 'tool-call-args') {
    const call = calls.get(event.toolCallId);
    if (call) call.args += event.delta;
  } else if (event.type === 'tool-call-result') {
    const call = calls.get(event.toolCallId);
    const edited = edits.get(event.toolCallId);
    calls.delete(event.toolCallId);
    edits.delete(event.toolCallId);
    const args = edited ? `${edited} (edited)` : (call?.args ?? '');
    print(dim(`  ↳ ${event.toolName || call?.name} ${args} → ${short(event.result)}`));
  } else if (event.type === 'run-retrying') {
    print(dim(`  … retrying (${event.code})`));
  } else if (event.type === 'run-error') {
    print(red(`✗ ${event.code}: ${event.message}`));
    settle({ kind: 'failed' });
  } else if (event.type === 'run-paused') {
    endLine();
    settle({ kind: 'paused', runId: event.runId, interruptions: event.interruptions });
  } else if (event.type === 'run-finished') {
    endLine();
    settle({ kind: 'finished' });
  }
}

function short(result: unknown, max = 120): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

let quitting = false;
let exitCode = 0;
ws.on('close', (code) => {
  if (quitting) return;
  print(red(`✗ the server closed the connection (${code})`));
  quitting = true;
  exitCode = 1;
  settle({ kind: 'quit' });
  rl.close();
});
ws.on('error', (err) => print(red(`✗ ${err.message}`)));

/** Sends a `run` or `resume` and waits for the end of what it started. */
function send(message: RunMessage | ResumeMessage): Promise<Outcome> {
  if (quitting) return Promise.resolve({ kind: 'quit' });
  return new Promise((resolve) => {
    waiting = { requestId: message.requestId, resolve };
    ws.send(JSON.stringify(message), (err) => {
      if (err) {
        print(red(`✗ ${err.message}`));
        settle({ kind: 'failed' });
      }
    });
  });
}

// ---------------------------------------------------------------- the terminal

// Iterated from the start, so piped lines that arrive during a run wait in its buffer.
const rl = createInterface({ input: stdin, output: stdout, terminal: interactive });
const lines = rl[Symbol.asyncIterator]();

/** A read a question gave up on (decided elsewhere): the next question takes its line. */
let pendingLine: Promise<IteratorResult<string>> | undefined;

/** The next line typed (or piped) after `prompt`; undefined at EOF or on quitting. */
async function ask(prompt: string, dropped?: AbortSignal): Promise<string | undefined> {
  if (interactive) {
    rl.setPrompt(prompt);
    rl.prompt();
  }
  pendingLine ??= lines.next();
  const next = await pendingLine;
  // A dropped question leaves its line to the next prompt, even one not asked yet (the turn may
  // still be waiting for the run's end when the line arrives).
  if (dropped?.aborted && !next.done) return undefined;
  pendingLine = undefined;
  if (next.done || quitting) return undefined;
  // Piped input is not echoed by a terminal: show it, so the transcript reads as a chat.
  if (!interactive) stdout.write(`${prompt}${next.value}\n`);
  return next.value;
}

const quit = () => {
  quitting = true;
  settle({ kind: 'quit' });
  rl.close();
};
rl.on('SIGINT', quit); // a terminal's Ctrl+C, which readline catches
process.on('SIGINT', quit); // a signal sent to the process

/** How to decide the paused run from another terminal, as a back-office system would. */
function showApproveLine(runId: string, interruptions: Interruption[]): void {
  for (const interruption of interruptions) {
    print(dim(`  paused: run ${runId} · call ${interruption.id}; or decide it from elsewhere:`));
    if (approvalsQueue) {
      print(
        dim(
          `    npm run approve -- ${approvalsQueue} ${sessionId} ${runId} ${interruption.id} approved`,
        ),
      );
    } else {
      // No queue URL known (a remote stack): the HTTP API decides it with the same token.
      const api = httpApi ?? '<http-api-url>';
      const body = JSON.stringify({ decisions: [{ id: interruption.id, status: 'approved' }] });
      print(
        dim(
          `    curl -X POST -H "authorization: Bearer $AGENT_KERNEL_TOKEN" -H "content-type: application/json" -d '${body}' ${api}/sessions/${sessionId}/runs/${runId}/decisions`,
        ),
      );
      if (!httpApi) {
        print(dim('    (AGENT_KERNEL_HTTP_URL, or AGENT_KERNEL_APPROVALS_QUEUE_URL, fills it in)'));
      }
    }
  }
}

/** One decision per interruption, asked in turn; undefined when the input ends first. */
async function decide(
  interruptions: Interruption[],
  dropped: AbortSignal,
): Promise<Decision[] | undefined> {
  const decisions: Decision[] = [];
  for (const interruption of interruptions) {
    if (interruption.kind === 'input') {
      const answer = await ask(`${interruption.message ?? 'The agent asks for input'}: `, dropped);
      if (answer === undefined) return undefined;
      decisions.push({ id: interruption.id, status: 'approved', message: answer });
      continue;
    }
    const args = JSON.stringify(interruption.arguments ?? {});
    const answer = await ask(`Approve ${interruption.toolName} ${args}? [y/N/edit] `, dropped);
    if (answer === undefined) return undefined;
    const choice = answer.trim().toLowerCase();
    if (choice === 'y' || choice === 'yes') {
      decisions.push({ id: interruption.id, status: 'approved' });
    } else if (choice === 'e' || choice === 'edit') {
      const edited = await editedArguments(args, dropped);
      if (edited === undefined) return undefined;
      edits.set(interruption.id, JSON.stringify(edited));
      decisions.push({ id: interruption.id, status: 'approved', arguments: edited });
    } else {
      decisions.push({ id: interruption.id, status: 'denied' });
    }
  }
  return decisions;
}

/** Reads JSON arguments until they parse; an empty line keeps `current`. */
async function editedArguments(current: string, dropped: AbortSignal): Promise<unknown> {
  for (;;) {
    const line = await ask('  arguments (JSON, empty keeps them): ', dropped);
    if (line === undefined) return undefined;
    if (!line.trim()) return JSON.parse(current);
    try {
      return JSON.parse(line);
    } catch (err) {
      print(red(`✗ not JSON: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
}

/** One turn: the run, then a resume for each pause, until it finishes or fails. */
async function turn(input: string): Promise<void> {
  let outcome = await send({
    action: 'run',
    requestId: randomUUID(),
    agent: AGENT,
    sessionId,
    input,
  });
  while (outcome.kind === 'paused') {
    showApproveLine(outcome.runId, outcome.interruptions);
    // Decided here, or elsewhere (`npm run approve`, the playground): the first batch of the
    // run after its pause means it went on without us; the question is dropped at once (not at
    // the run's end, or a line typed meanwhile would answer it), its pending read serves the next
    // prompt, and the turn waits for the run's end.
    const pausedRun = outcome.runId;
    const moved = new Promise<'moved'>((resolve) => {
      movedOn = (runId) => {
        if (runId !== pausedRun) return;
        movedOn = undefined;
        // Now, before the batch is shown, so the note does not split the streamed reply.
        if (interactive) stdout.write('\n');
        print(dim('  (decided elsewhere: the run went on)'));
        resolve('moved');
      };
    });
    const ended = new Promise<Outcome>((resolve) => {
      waiting = { requestId: 'decided-elsewhere', resolve };
    });
    const dropped = new AbortController();
    const first = await Promise.race([
      decide(outcome.interruptions, dropped.signal).then((decisions) => ({ decisions })),
      moved,
    ]);
    if (first === 'moved') {
      dropped.abort();
      outcome = await ended;
      continue;
    }
    movedOn = undefined;
    waiting = undefined;
    const { decisions } = first;
    if (!decisions) return;
    outcome = await send({
      action: 'resume',
      requestId: randomUUID(),
      sessionId,
      runId: outcome.runId,
      decisions,
    });
  }
}

for (;;) {
  const raw = await ask('> ');
  if (raw === undefined) break;
  const line = raw.trim();
  if (line === '/exit') break;
  if (line) await turn(line);
  if (quitting) break;
}
// Ctrl+D and Ctrl+C leave the cursor after the prompt.
if (interactive) stdout.write('\n');
quitting = true;
rl.close();
ws.close();
await stack?.stop();
process.exit(exitCode);
