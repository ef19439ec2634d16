/**
 * `npm start [-- --agents <path>]`: the local stack on 127.0.0.1 until Ctrl+C, serving the demo
 * agent or the agents module given (--agents or AGENT_KERNEL_AGENTS: docs/agents.md). Offline
 * unless OPENAI_API_KEY is set. A failure prints one line and a hint (lib/local/cli.ts).
 */

import { useAgentsEntry } from './agents-entry.js';
import { parseFlags, runCommand } from './cli.js';

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

const USAGE =
  'usage: npm start [-- --agents <path to your agents module>]\n' +
  '  --agents: the module that builds your agents (else AGENT_KERNEL_AGENTS, else the demo; docs/agents.md)\n' +
  '  PORT=<n>: the port of the HTTP and WebSocket APIs (default 3000; 0 picks a free one)';

await runCommand(async () => {
  const flags = parseFlags(process.argv.slice(2), { agents: { type: 'string' } }, USAGE, false);
  if (!flags) return 0;
  const { agents } = flags.values;
  const { entry } = useAgentsEntry(agents === undefined ? [] : ['--agents', agents]);
  const port = process.env.PORT ? Number(process.env.PORT) : 3000;
  // Imported once `#agents` points where it should: the stack loads the functions.
  const { startLocalStack } = await import('./stack.js');
  const stack = await startLocalStack({ port });
  const offline = process.env.OPENAI_API_KEY === 'offline';
  // The stack's first approver (APPROVER_PRINCIPALS, `back-office` by default): the inbox's token.
  const approver = (process.env.APPROVER_PRINCIPALS ?? 'back-office').split(',')[0]?.trim();
  const approverToken = approver ? await stack.tokenFor(approver) : undefined;
  console.log(`Agent Kernel local stack${offline ? ' (offline: scripted model server)' : ''}
  playground     ${stack.playgroundUrl}   (open it in a browser, paste the TOKEN below)
  agents         ${entry ?? 'the demo (examples/demo/agents.ts)'}: ${process.env.AGENT_NAMES}
  HTTP API       ${stack.httpUrl}        e.g. curl -H "authorization: Bearer $TOKEN" ${stack.httpUrl}/agents
  WebSocket API  ${stack.wsUrl}?token=$TOKEN
  Stream URL     ${stack.streamUrl}   (POST <stream-url>/runs, Accept: text/event-stream: a run as SSE; /ag-ui: AG-UI)
  SQS endpoint   ${stack.sqsEndpoint}
  approvals      ${stack.queues.approvals}

TOKEN=${stack.token}

Try:  npx wscat -c "${stack.wsUrl}?token=$TOKEN"
      > {"action":"run","requestId":"r1","agent":"${process.env.AGENT_NAMES?.split(',')[0] ?? 'demo'}","sessionId":"s1","input":"weather in Paris?"}
Chat with it from another terminal (after the TOKEN line above):
      AGENT_KERNEL_WS_URL=${stack.wsUrl} AGENT_KERNEL_TOKEN=$TOKEN AGENT_KERNEL_HTTP_URL=${stack.httpUrl} AGENT_KERNEL_APPROVALS_QUEUE_URL=${stack.queues.approvals} npm run chat
A paused run can be decided from the approvals queue too (it waits for the outcome):
      npm run approve -- --api ${stack.httpUrl} --token $TOKEN ${stack.queues.approvals} <sessionId> <runId> <callId> [approved|denied]${
        approverToken
          ? `
Or from the approvals inbox, ${stack.playgroundUrl}#/approvals, with the token of ${approver} (an approver):
APPROVER_TOKEN=${approverToken}`
          : ''
      }
Ctrl+C stops everything.`);

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stack.stop().then(() => process.exit(0));
    });
  }
  return 0;
});
