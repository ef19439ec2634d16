/**
 * `npm start`: the local stack with the demo agent (or the agents entry `#agents` points at),
 * on 127.0.0.1, until Ctrl+C. Offline unless OPENAI_API_KEY is set.
 */
import { PortInUse } from './gateway.js';
import { startLocalStack } from './stack.js';

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
const port = process.env.PORT ? Number(process.env.PORT) : 3000;
const stack = await startLocalStack({ port }).catch((err: unknown) => {
  if (!(err instanceof PortInUse)) throw err;
  console.error(err.message);
  process.exit(1);
});
const offline = process.env.OPENAI_API_KEY === 'offline';
console.log(`Agent Kernel local stack${offline ? ' (offline: scripted model server)' : ''}
  HTTP API       ${stack.httpUrl}        e.g. curl -H "authorization: Bearer $TOKEN" ${stack.httpUrl}/agents
  WebSocket API  ${stack.wsUrl}?token=$TOKEN
  SQS endpoint   ${stack.sqsEndpoint}
  approvals      ${stack.queues.approvals}

TOKEN=${stack.token}

Try:  npx wscat -c "${stack.wsUrl}?token=$TOKEN"
      > {"action":"run","requestId":"r1","agent":"demo","sessionId":"s1","input":"weather in Paris?"}
A paused run can be decided from the approvals queue too:
      npm run approve -- ${stack.queues.approvals} <sessionId> <runId> <callId> [approved|denied]
Ctrl+C stops everything.`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stack.stop().then(() => process.exit(0));
  });
}
