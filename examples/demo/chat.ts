/**
 * Terminal chat with the demo agent in this process: `npm run chat:local`. Without
 * OPENAI_API_KEY or OPENAI_BASE_URL it talks to the offline scripted model. A booking asks for
 * your approval (y/N) and resumes from an in-memory paused-run store. Type `/exit` or press
 * Ctrl+D to quit; Ctrl+C cancels a reply, or quits.
 */
import { randomUUID } from 'node:crypto';
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import type { StreamEvent } from '../../lib/core/events.js';
import type { Interruption } from '../../lib/core/requests.js';
import type { Decision } from '../../lib/core/runner.js';
import { InMemoryPausedRunStore } from '../../lib/stores/index.js';
import { createDemo } from './agent.js';
import { startOfflineModel } from './offline-model.js';

const color = stdout.isTTY && !process.env.NO_COLOR;
const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
const red = (text: string) => (color ? `\x1b[31m${text}\x1b[39m` : text);

const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL } = process.env;
const offline = apiKey || baseURL ? undefined : await startOfflineModel();
// An in-process paused-run store: a booking waits here for your y/N, then resumes.
const pausedRuns = new InMemoryPausedRunStore();
const { runtime, agent } = createDemo(
  offline
    ? { apiKey: 'offline', baseURL: offline.url, model: 'scripted-model', pausedRuns }
    : // A local OpenAI-compatible server may need no key; the client insists on one.
      { apiKey: apiKey ?? 'no-key', ...(baseURL ? { baseURL } : {}), pausedRuns },
);
const sessionId = `chat-${randomUUID()}`;
const interactive = stdin.isTTY === true;

console.log(
  offline
    ? 'No OPENAI_API_KEY set: using the offline scripted model (try "weather in Paris?" or "book a table for 2 at 8pm"). /exit quits.'
    : `Using OpenAI model ${String(agent.model)}. /exit quits.`,
);

type Paused = { runId: string; interruptions: Interruption[] };
/** Tool calls by id, kept across a pause: the resumed part shows the call's result only. */
const calls = new Map<string, { name: string; args: string }>();

/** Streams one part of a reply: text as it arrives, a line per tool call, errors in red. */
async function show(
  events: AsyncIterable<StreamEvent>,
  signal: AbortSignal,
): Promise<Paused | undefined> {
  let lineOpen = false;
  let paused: Paused | undefined;
  const print = (text: string) => {
    if (lineOpen) stdout.write('\n');
    stdout.write(`${text}\n`);
    lineOpen = false;
  };
  for await (const event of events) {
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
      calls.delete(event.toolCallId);
      print(
        dim(`  ↳ ${event.toolName || call?.name} ${call?.args ?? ''} → ${short(event.result)}`),
      );
    } else if (event.type === 'run-error') {
      print(signal.aborted ? dim('(cancelled)') : red(`✗ ${event.code}: ${event.message}`));
    } else if (event.type === 'run-paused') {
      paused = { runId: event.runId, interruptions: event.interruptions };
    }
  }
  if (lineOpen) stdout.write('\n');
  return paused;
}

/** One turn: the run, then a resume with your decisions for each pause (in-process store). */
async function reply(line: string, signal: AbortSignal): Promise<void> {
  let paused = await show(runtime.stream('demo', sessionId, line, { signal }), signal);
  while (paused && !signal.aborted) {
    const decisions: Decision[] = [];
    for (const interruption of paused.interruptions) {
      const args = JSON.stringify(interruption.arguments ?? {});
      const answer = await ask(
        `Approve ${interruption.toolName ?? interruption.kind} ${args}? [y/N] `,
      );
      if (answer === undefined) return;
      const yes = ['y', 'yes'].includes(answer.trim().toLowerCase());
      decisions.push({ id: interruption.id, status: yes ? 'approved' : 'denied' });
    }
    paused = await show(
      runtime.resumeStream(sessionId, paused.runId, decisions, { signal }),
      signal,
    );
  }
}

function short(result: unknown, max = 120): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const rl = createInterface({ input: stdin, output: stdout, terminal: interactive });
// Iterated from the start, so piped lines that arrive during a reply wait in its buffer.
const lines = rl[Symbol.asyncIterator]();
let turn: AbortController | undefined;
let quitting = false; // Ctrl+C at the prompt
let exited = false; // `/exit`
const interrupt = () => {
  if (turn) turn.abort();
  else {
    quitting = true;
    rl.close();
  }
};
rl.on('SIGINT', interrupt); // a terminal's Ctrl+C, which readline catches
process.on('SIGINT', interrupt); // a signal sent to the process

/** The next line typed (or piped) after `prompt`; undefined at EOF or on quitting. */
async function ask(prompt: string): Promise<string | undefined> {
  if (interactive) {
    rl.setPrompt(prompt);
    rl.prompt();
  }
  const next = await lines.next();
  if (next.done || quitting) return undefined;
  // Piped input is not echoed by a terminal: show it, so the transcript reads as a chat.
  if (!interactive) stdout.write(`${prompt}${next.value}\n`);
  return next.value;
}

for (;;) {
  const raw = await ask('> ');
  if (raw === undefined) break;
  const line = raw.trim();
  if (line === '/exit') {
    exited = true;
    break;
  }
  if (line) {
    turn = new AbortController();
    await reply(line, turn.signal);
    turn = undefined;
  }
}
// Ctrl+D and Ctrl+C leave the cursor after the prompt.
if (interactive && !exited) stdout.write('\n');
rl.close();
// `interrupt` stays registered: @openai/agents exits with 130 on SIGINT when it is alone.
await offline?.close();
