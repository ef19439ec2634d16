/**
 * Terminal chat with the demo agent: `npm run chat`. Without OPENAI_API_KEY it talks to the
 * offline scripted model. Type `/exit` or press Ctrl+D to quit; Ctrl+C cancels a reply, or quits.
 */
import { randomUUID } from 'node:crypto';
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import { createDemo } from './agent.js';
import { startOfflineModel } from './offline-model.js';

const color = stdout.isTTY && !process.env.NO_COLOR;
const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
const red = (text: string) => (color ? `\x1b[31m${text}\x1b[39m` : text);

const offline = process.env.OPENAI_API_KEY ? undefined : await startOfflineModel();
const { runtime, agent } = createDemo(
  offline ? { apiKey: 'offline', baseURL: offline.url, model: 'scripted-model' } : {},
);
const sessionId = `chat-${randomUUID()}`;
const interactive = stdin.isTTY === true;

console.log(
  offline
    ? 'No OPENAI_API_KEY set: using the offline scripted model (try "weather in Paris?"). /exit quits.'
    : `Using OpenAI model ${String(agent.model)}. /exit quits.`,
);

/** Streams one reply: text as it arrives, a line per tool call, errors in red. */
async function reply(line: string, signal: AbortSignal): Promise<void> {
  const calls = new Map<string, { name: string; args: string }>();
  let lineOpen = false;
  const print = (text: string) => {
    if (lineOpen) stdout.write('\n');
    stdout.write(`${text}\n`);
    lineOpen = false;
  };
  for await (const event of runtime.stream('demo', sessionId, line, { signal })) {
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
      print(
        dim(`  ↳ ${event.toolName || call?.name} ${call?.args ?? ''} → ${short(event.result)}`),
      );
    } else if (event.type === 'run-error') {
      print(signal.aborted ? dim('(cancelled)') : red(`✗ ${event.code}: ${event.message}`));
    }
  }
  if (lineOpen) stdout.write('\n');
}

function short(result: unknown, max = 120): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const rl = createInterface({ input: stdin, output: stdout, terminal: interactive });
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

rl.setPrompt('> ');
if (interactive) rl.prompt();
for await (const raw of rl) {
  if (quitting) break;
  const line = raw.trim();
  // Piped input is not echoed by a terminal: show it, so the transcript reads as a chat.
  if (!interactive) stdout.write(`> ${raw}\n`);
  if (line === '/exit') {
    exited = true;
    break;
  }
  if (line) {
    turn = new AbortController();
    await reply(line, turn.signal);
    turn = undefined;
  }
  if (interactive) rl.prompt();
}
// Ctrl+D and Ctrl+C leave the cursor after the prompt.
if (interactive && !exited) stdout.write('\n');
rl.close();
// `interrupt` stays registered: @openai/agents exits with 130 on SIGINT when it is alone.
await offline?.close();
