import { randomUUID } from 'node:crypto';
import {
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { createDynamoClient } from '../../../lib/stores/dynamodb/client.js';
import { DynamoToolLedger } from '../../../lib/stores/dynamodb/ledger.js';
import { useLocalStack } from './clients.js';

const stack = useLocalStack();

interface CardJson {
  name: string;
  capabilities: Record<string, unknown>;
  skills: { id: string }[];
  securitySchemes: { bearer: { httpAuthSecurityScheme: Record<string, unknown> } };
  securityRequirements: unknown[];
  supportedInterfaces: unknown[];
}
interface RpcAnswer {
  result: { id: string; kind: string; status: { state: string } };
  error?: { code: number; message: string };
}

const agentUrl = () => `${stack.streamUrl}/a2a/demo/`;

/** The official SDK client (A2A 1.0 JSON-RPC) as a principal, from the agent's card. */
async function clientAs(principal: string): Promise<Client> {
  const token = await stack.tokenFor(principal);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(agentUrl());
}

function text(value: string): Part {
  return { content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function send(
  parts: Part[],
  ids: { taskId?: string; contextId?: string; messageId?: string } = {},
): SendMessageRequest {
  const message: Message = {
    messageId: ids.messageId ?? randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: {} };
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

const textOf = (parts: Part[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** The ledger the demo's Executor writes each book_table call into (the local stack's table). */
async function bookings(sessionId: string, runId: string) {
  const client = createDynamoClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const ledger = new DynamoToolLedger({ client, tableName: process.env.TABLE_NAME as string });
  const entries = await ledger.list(sessionId, runId);
  client.destroy();
  return entries.filter((e) => e.tool === 'book_table' && e.outcome === 'ok');
}

describe('the A2A server on the stream function (local stack, the official SDK client)', () => {
  it('serves the agent card: skills from the tools, bearer auth, streaming, its URL', async () => {
    const response = await fetch(`${agentUrl()}.well-known/agent-card.json`);
    const card = (await response.json()) as CardJson;

    expect(response.status).toBe(200);
    expect(card.name).toBe('demo');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(card.skills.map((s) => s.id)).toEqual(
      expect.arrayContaining(['get_weather', 'get_time', 'book_table']),
    );
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme).toMatchObject({ scheme: 'Bearer' });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: agentUrl(),
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      }),
      expect.objectContaining({
        url: agentUrl(),
        protocolBinding: 'JSONRPC',
        protocolVersion: '0.3',
      }),
    ]);
  });

  it('message/send runs a turn: a completed task, its reply as the artifact', async () => {
    const client = await clientAs('alice');
    const task = asTask(await client.sendMessage(send([text('What is the weather in Paris?')])));

    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toContain('Paris');
    // The task is the run; its context is the session (reused by the next message).
    const next = asTask(
      await client.sendMessage(send([text('What time is it?')], { contextId: task.contextId })),
    );
    expect(next.contextId).toBe(task.contextId);
    expect(next.id).not.toBe(task.id);
  });

  it('message/stream streams the turn: the task, text appends, then completed', async () => {
    const client = await clientAs('alice');
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(
      send([text('What is the weather in Oslo?')]),
    )) {
      events.push(event);
    }

    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case !== 'statusUpdate') throw new Error('no status');
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const full = events.flatMap((e) =>
      e.payload?.$case === 'artifactUpdate' && e.payload.value.lastChunk
        ? [e.payload.value.artifact]
        : [],
    );
    expect(textOf(full[0]?.parts)).toContain('Oslo');
  });

  it('message/stream of a pause ends input-required; the streamed follow-up completes it', async () => {
    const client = await clientAs('alice');
    const last = async (request: SendMessageRequest) => {
      let final: StreamResponse | undefined;
      for await (const event of client.sendMessageStream(request)) final = event;
      return final?.payload?.$case === 'statusUpdate' ? final.payload.value : undefined;
    };
    const paused = await last(send([text('book a table for 5 at 6pm')]));
    expect(paused?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ids = { taskId: paused?.taskId ?? '', contextId: paused?.contextId ?? '' };
    const done = await last(send([text('approve')], ids));

    expect(done).toMatchObject({
      taskId: ids.taskId,
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    const [sessionId, runId] = ids.taskId.split('~') as [string, string];
    expect(await bookings(sessionId, runId)).toHaveLength(1);
  });

  it('a pause is input-required with the pending call; a follow-up resumes it once', async () => {
    // Prepare
    const client = await clientAs('alice');
    const paused = asTask(await client.sendMessage(send([text('book a table for 2 at 8pm')])));
    const pending = paused.status?.message?.metadata?.['io.agent-kernel/interruptions'];

    // Act: two different answers race; then the task is read.
    const answer = (messageId: string) =>
      client.sendMessage(
        send([text('approve')], { taskId: paused.id, contextId: paused.contextId, messageId }),
      );
    const outcomes = await Promise.allSettled([answer(randomUUID()), answer(randomUUID())]);
    const read = await client.getTask({ tenant: '', id: paused.id });

    // Assess
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(pending).toEqual([
      expect.objectContaining({ kind: 'tool-approval', toolName: 'book_table' }),
    ]);
    // One resume runs; the racer waits for it and gets its outcome (the terminal rule).
    const answers = outcomes.map((o) => (o.status === 'fulfilled' ? asTask(o.value) : o.reason));
    for (const done of answers) {
      expect(done).toMatchObject({
        id: paused.id,
        status: { state: TaskState.TASK_STATE_COMPLETED },
      });
    }
    expect(textOf(answers[0].artifacts[0]?.parts)).toBe(textOf(answers[1].artifacts[0]?.parts));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The side effect: one booking in the ledger, made once.
    const [sessionId, runId] = paused.id.split('~') as [string, string];
    const made = await bookings(sessionId, runId);
    expect(made).toHaveLength(1);
    expect(made[0]?.attempts).toBe(1);
  });

  it('a follow-up sent again (same messageId) gets its first answer; nothing runs again', async () => {
    const client = await clientAs('alice');
    const paused = asTask(await client.sendMessage(send([text('book a table for 4 at 7pm')])));
    const pending = paused.status?.message?.metadata?.['io.agent-kernel/interruptions'];
    const decisions = pending.map((i: { id: string }) => ({ id: i.id, status: 'approved' }));
    const answer: Part = {
      content: { $case: 'data', value: { decisions } },
      mediaType: 'application/json',
      filename: '',
      metadata: {},
    };
    const ids = { taskId: paused.id, contextId: paused.contextId, messageId: randomUUID() };
    const first = asTask(await client.sendMessage(send([answer], ids)));
    const again = asTask(await client.sendMessage(send([answer], ids)));
    // "approve" again under a new messageId: the task waits for nothing any more.
    const late = client.sendMessage(send([text('approve')], { taskId: paused.id }));

    await expect(late).rejects.toThrow(/not waiting for input/);

    expect(again).toMatchObject({
      id: first.id,
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    const [sessionId, runId] = paused.id.split('~') as [string, string];
    expect(await bookings(sessionId, runId)).toHaveLength(1);
  });

  it('cancel answers the pending call with a denial: canceled, the tool never runs', async () => {
    const client = await clientAs('alice');
    const paused = asTask(await client.sendMessage(send([text('book a table for 3 at 9pm')])));
    const canceled = await client.cancelTask({ tenant: '', id: paused.id, metadata: {} });
    const late = client.sendMessage(send([text('approve')], { taskId: paused.id }));
    const ended = client.cancelTask({ tenant: '', id: paused.id, metadata: {} });

    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(late).rejects.toThrow(/not waiting for input/);
    await expect(ended).rejects.toThrow(/cancel/i);
    // The run ended as the agent answered the denial, and the session takes a new turn.
    const read = await client.getTask({ tenant: '', id: paused.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const next = asTask(
      await client.sendMessage(send([text('What time is it?')], { contextId: paused.contextId })),
    );
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [sessionId, runId] = paused.id.split('~') as [string, string];
    expect(await bookings(sessionId, runId)).toHaveLength(0);
  });

  it("another principal's task is not found, as a guessed id is", async () => {
    // Prepare
    const alice = await clientAs('alice');
    const mine = asTask(await alice.sendMessage(send([text('book a table for 2 at 6pm')])));
    const bob = await clientAs('bob');

    // Act
    const attempts = [
      bob.getTask({ tenant: '', id: mine.id }),
      bob.cancelTask({ tenant: '', id: mine.id, metadata: {} }),
      bob.sendMessage(send([text('approve')], { taskId: mine.id })),
      bob.getTask({ tenant: '', id: `${mine.contextId}~${randomUUID()}` }),
      bob.getTask({ tenant: '', id: randomUUID() }),
    ];

    // Assess: the same error for each, and alice's task still waits.
    for (const attempt of attempts) await expect(attempt).rejects.toThrow(/not found/i);
    const still = await alice.getTask({ tenant: '', id: mine.id });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await alice.cancelTask({ tenant: '', id: mine.id, metadata: {} });
  });

  it('no token or a bad one is a 401 with a JSON-RPC error and a Bearer challenge', async () => {
    for (const authorization of [undefined, 'Bearer nope', 'Basic x']) {
      const response = await fetch(agentUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    }
  });

  it('answers A2A 0.3 method names (message/send, tasks/get) too', async () => {
    const token = await stack.tokenFor('carol');
    const rpc = async (method: string, params: unknown) => {
      const response = await fetch(agentUrl(), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      });
      return response.json();
    };
    const message = {
      kind: 'message',
      messageId: randomUUID(),
      role: 'user',
      parts: [{ kind: 'text', text: 'What time is it?' }],
    };
    const sent = (await rpc('message/send', { message })) as RpcAnswer;
    const read = (await rpc('tasks/get', { id: sent.result.id })) as RpcAnswer;

    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(read.result).toMatchObject({ id: sent.result.id, status: { state: 'completed' } });
  });
});
