import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createDisconnectHandler } from '../../../lib/aws/handlers/ws-connection.js';
import { createMessageHandler } from '../../../lib/aws/handlers/ws-message.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import {
  connect,
  messageViewOf,
  newStack,
  type Stack,
  send,
  settle,
  useEndpoints,
  wsEvent,
} from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

async function queuedJobs(stack: Stack): Promise<number> {
  const received = await stack.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: stack.queues.run, MaxNumberOfMessages: 10 }),
  );
  return received.Messages?.length ?? 0;
}

/** A session `s-alice` owned by alice, with one finished turn. */
async function aliceSession(stack: Stack): Promise<void> {
  await connect(stack, 'conn-alice', 'alice');
  server.push({ text: 'Hello Alice.' });
  const run = { action: 'run', requestId: 'r0', agent: 'payer', sessionId: 's-alice', input: 'Hi' };
  await send(stack, 'conn-alice', 'alice', run);
  await settle(stack);
}

const run = { action: 'run', requestId: 'req-1', agent: 'payer', sessionId: 's-new', input: 'Hi' };

describe('ws-message function', () => {
  it.each([
    ['malformed JSON', '{"action": "run",', 'bad-json', undefined],
    ['an unknown action', { action: 'dance', requestId: 'req-1' }, 'unknown-action', 'req-1'],
    [
      'a missing field',
      { action: 'run', requestId: 'req-1', input: 'x' },
      'invalid-message',
      'req-1',
    ],
    ['an unknown field', { ...run, priority: 1 }, 'invalid-message', 'req-1'],
    ['an oversized input', { ...run, input: 'x'.repeat(100 * 1024) }, 'too-large', 'req-1'],
    ['an oversized frame', { ...run, input: 'x'.repeat(130 * 1024) }, 'too-large', 'req-1'],
    ['an unknown agent', { ...run, agent: 'nobody' }, 'agent-not-found', 'req-1'],
  ])('answers %s with an error and stores nothing', async (_label, body, code, requestId) => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-1', 'alice');

    // Act
    await send(stack, 'conn-1', 'alice', body);

    // Assess
    const [error, ...rest] = endpoints.connections.messages('conn-1');
    expect(error).toMatchObject({ type: 'error', code, ...(requestId ? { requestId } : {}) });
    expect(error.message).toEqual(expect.any(String));
    expect(rest).toEqual([]);
    expect(await stack.deployed.connections.get('conn-1')).toMatchObject({ sessions: [] });
    expect(await queuedJobs(stack)).toBe(0);
    expect(await stack.deployed.runtime.sessions.load('s-new')).toBeUndefined();
  });

  it.each([
    [
      'run',
      { action: 'run', requestId: 'req-m', agent: 'payer', sessionId: 's-alice', input: 'x' },
    ],
    [
      'resume',
      {
        action: 'resume',
        requestId: 'req-m',
        sessionId: 's-alice',
        runId: 'any-run',
        decisions: [{ id: 'call_1', status: 'approved' }],
      },
    ],
    ['subscribe', { action: 'subscribe', requestId: 'req-m', sessionId: 's-alice' }],
  ])('refuses %s on another principal’s session', async (_label, body) => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await aliceSession(stack);
    await connect(stack, 'conn-m', 'mallory');

    // Act
    await send(stack, 'conn-m', 'mallory', body);

    // Assess
    expect(endpoints.connections.messages('conn-m')).toEqual([
      expect.objectContaining({ type: 'error', requestId: 'req-m', code: 'not-found' }),
    ]);
    expect(await stack.deployed.connections.get('conn-m')).toMatchObject({ sessions: [] });
    expect(await queuedJobs(stack)).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('without AGENT_NAMES lets any agent name through: the worker refuses an unknown one', async () => {
    // Prepare: ws-message as deployed when the stack could not list the agents.
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-1', 'alice');
    const message = createMessageHandler(
      async () => ({ ...messageViewOf(stack.deployed), agentNames: undefined }),
      { clients: stack.clients },
    );

    // Act
    await message(
      wsEvent(
        'websocket/message-run.json',
        'conn-1',
        'alice',
        JSON.stringify({ ...run, agent: 'nobody' }),
      ),
    );
    await settle(stack);

    // Assess: accepted, then the run's error event with the same code; the session is only
    // claimed by alice (no turn stored).
    const [accepted, ...rest] = endpoints.connections.messages('conn-1');
    expect(accepted).toMatchObject({ type: 'accepted', requestId: 'req-1', sessionId: 's-new' });
    const events = rest.flatMap((m) => m.events ?? []);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'run-error', code: 'agent-not-found' }),
    );
    const session = await stack.deployed.runtime.sessions.load('s-new');
    expect(session?.data).toMatchObject({ owner: 'alice', turns: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it('resumes a paused run over the WebSocket', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-1', 'alice');
    const call = { id: 'call_1', name: 'send_payment', arguments: { to: 'bob', amount: 5 } };
    server.push({ toolCalls: [call] }, { text: 'Done.' });
    await send(stack, 'conn-1', 'alice', { ...run, sessionId: 's-pay' });
    await settle(stack);
    const { runId } = endpoints.connections.messages('conn-1')[0];

    // Act
    await send(stack, 'conn-1', 'alice', {
      action: 'resume',
      requestId: 'req-2',
      sessionId: 's-pay',
      runId,
      decisions: [{ id: 'call_1', status: 'approved' }],
    });
    await settle(stack);

    // Assess
    const messages = endpoints.connections.messages('conn-1');
    expect(messages.filter((m) => m.type === 'accepted').map((m) => m.runId)).toEqual([
      runId,
      runId,
    ]);
    const batches = messages.filter((m) => m.type === 'events');
    expect(batches.map((m) => m.seq)).toEqual(batches.map((_, i) => i));
    expect(batches.at(-1).events.at(-1)).toMatchObject({ type: 'run-finished' });
  });

  it('unsubscribes, and forgets the connection on disconnect', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await aliceSession(stack);
    const disconnect = createDisconnectHandler(async () => stack.deployed);

    // Act
    await send(stack, 'conn-alice', 'alice', { action: 'unsubscribe', sessionId: 's-alice' });
    const afterUnsubscribe = await stack.deployed.connections.subscribers('s-alice');
    await disconnect(wsEvent('websocket/disconnect.json', 'conn-alice', 'alice'));

    // Assess
    expect(afterUnsubscribe).toEqual([]);
    expect(await stack.deployed.connections.get('conn-alice')).toBeUndefined();
  });

  it('stores the connection with its principal and endpoint on connect', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);

    // Act
    await connect(stack, 'conn-x', 'alice');

    // Assess
    expect(await stack.deployed.connections.get('conn-x')).toMatchObject({
      principal: 'alice',
      endpoint: endpoints.connections.url,
    });
  });
});
