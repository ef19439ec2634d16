import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { http, useLocalStack } from './clients.js';

const stack = useLocalStack();
const agentUrl = () => `${stack.streamUrl}/a2a/demo/`;

interface TaskJson {
  id: string;
  contextId: string;
  status: { state: string; message: { metadata: Record<string, { id: string }[]> } };
}
interface Answer {
  status: number;
  body: {
    jsonrpc?: string;
    id?: unknown;
    result?: TaskJson & { task: TaskJson };
    error?: { code: number; message: string; data?: unknown };
  };
}

/** One raw POST as a principal (what a broken or hostile client sends). */
async function post(
  body: string,
  headers: Record<string, string> = {},
  principal = 'mallory',
  url = agentUrl(),
): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      'content-type': 'application/json',
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

const rpc = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

const text = (value: string) => ({ text: value });
const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
});
const send = (parts: unknown[], extra: Record<string, unknown> = {}) =>
  rpc('SendMessage', { message: message(parts, extra) });

/** Alice's: a context and a task waiting for her decision, which nobody's bad input may touch. */
const alice = { contextId: '', taskId: '', callId: '' };

beforeAll(async () => {
  const answer = await post(send([text('book a table for 2 at 8pm')]), {}, 'alice');
  const task = answer.body.result?.task as TaskJson;
  alice.contextId = task.contextId;
  alice.taskId = task.id;
  alice.callId = task.status.message.metadata['io.agent-kernel/interruptions']?.[0]?.id ?? '';
}, 60_000);

type Case = [
  name: string,
  body: () => string,
  status: number,
  code: number,
  headers?: Record<string, string>,
  principal?: string,
];

const long = 'x'.repeat(300);
const cases: Case[] = [
  ['not JSON', () => '{', 400, -32700],
  ['an empty body', () => '', 400, -32700],
  ['a JSON string', () => '"x"', 400, -32600],
  ['a batch', () => '[]', 400, -32600],
  [
    'jsonrpc 1.0',
    () => '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}',
    400,
    -32600,
  ],
  ['no jsonrpc', () => '{"id":1,"method":"GetTask","params":{"id":"x"}}', 400, -32600],
  ['an object id', () => rpc('GetTask', { id: 'x' }, { a: 1 }), 400, -32600],
  ['a fractional id', () => rpc('GetTask', { id: 'x' }, 1.5), 400, -32600],
  ['a numeric method', () => '{"jsonrpc":"2.0","id":1,"method":42}', 400, -32600],
  ['no method', () => '{"jsonrpc":"2.0","id":1}', 400, -32600],
  ['an unknown method', () => rpc('Nope', {}), 200, -32601],
  ['a method of 10 kB', () => rpc('x'.repeat(10_000), {}), 200, -32601],
  [
    'a 1.0 method under A2A-Version 0.3',
    () => rpc('GetTask', { id: 'x' }),
    200,
    -32601,
    { 'a2a-version': '0.3' },
  ],
  [
    'an unknown A2A-Version',
    () => rpc('GetTask', { id: 'x' }),
    200,
    -32009,
    { 'a2a-version': '9.9' },
  ],
  ['SendMessage without params', () => rpc('SendMessage'), 200, -32602],
  ['params as a list', () => rpc('SendMessage', [1]), 200, -32602],
  ['no message', () => rpc('SendMessage', {}), 200, -32602],
  [
    'no messageId',
    () => rpc('SendMessage', { message: { role: 'ROLE_USER', parts: [text('hi')] } }),
    200,
    -32602,
  ],
  [
    'a numeric messageId',
    () => rpc('SendMessage', { message: { ...message([text('hi')]), messageId: 5 } }),
    200,
    -32602,
  ],
  [
    'the agent role',
    () => rpc('SendMessage', { message: { ...message([text('hi')]), role: 'ROLE_AGENT' } }),
    200,
    -32602,
  ],
  [
    'an unknown role',
    () => rpc('SendMessage', { message: { ...message([text('hi')]), role: 'boss' } }),
    200,
    -32602,
  ],
  ['no parts', () => send([]), 200, -32602],
  [
    'parts not a list',
    () => rpc('SendMessage', { message: { ...message([]), parts: 'hi' } }),
    200,
    -32602,
  ],
  ['a part with no content', () => send([{}]), 200, -32602],
  ['a part that is a string', () => send(['hi']), 200, -32602],
  ['a data part to start a turn', () => send([{ data: { a: 1 } }]), 200, -32005],
  ['a raw part without mediaType', () => send([{ raw: 'aGk=' }]), 200, -32602],
  ['an empty text', () => send([text('')]), 200, -32602],
  ['a text over the input gate', () => send([text('x'.repeat(100_000))]), 200, -32602],
  ['17 parts', () => send(Array.from({ length: 17 }, () => text('hi'))), 200, -32602],
  ['a bad contextId', () => send([text('hi')], { contextId: 'a b' }), 200, -32602],
  ['a 300-char contextId', () => send([text('hi')], { contextId: long }), 200, -32602],
  ['a numeric contextId', () => send([text('hi')], { contextId: 7 }), 200, -32602],
  [
    "another principal's contextId",
    () => send([text('hi')], { contextId: alice.contextId }),
    200,
    -32001,
  ],
  [
    'a guessed taskId',
    () => send([text('approve')], { taskId: `s-x~${randomUUID()}` }),
    200,
    -32001,
  ],
  ['a malformed taskId', () => send([text('approve')], { taskId: 'a~b~c' }), 200, -32001],
  [
    "another principal's taskId",
    () => send([text('approve')], { taskId: alice.taskId }),
    200,
    -32001,
  ],
  ['GetTask without id', () => rpc('GetTask', {}), 200, -32602],
  ['GetTask with a numeric id', () => rpc('GetTask', { id: 5 }), 200, -32602],
  [
    'GetTask with a negative historyLength',
    () => rpc('GetTask', { id: 'x', historyLength: -1 }),
    200,
    -32602,
  ],
  ['GetTask of a guessed id', () => rpc('GetTask', { id: randomUUID() }), 200, -32001],
  ["GetTask of another principal's task", () => rpc('GetTask', { id: alice.taskId }), 200, -32001],
  [
    "CancelTask of another principal's task",
    () => rpc('CancelTask', { id: alice.taskId }),
    200,
    -32001,
  ],
  [
    'CancelTask of a guessed id',
    () => rpc('CancelTask', { id: `${alice.contextId}~${randomUUID()}` }),
    200,
    -32001,
  ],
  ['ListTasks', () => rpc('ListTasks', {}), 200, -32004],
  [
    'a push notification config',
    () => rpc('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://x' }),
    200,
    -32003,
  ],
  [
    'a 0.3 part of an unknown kind',
    () =>
      rpc('message/send', {
        message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'bogus' }] },
      }),
    200,
    -32602,
  ],
  ['0.3 tasks/get without id', () => rpc('tasks/get', {}), 200, -32602],
  ['0.3 tasks/get of a guessed id', () => rpc('tasks/get', { id: 'nope' }), 200, -32001],
  ['a body over 1 MiB', () => JSON.stringify({ pad: 'x'.repeat(1_100_000) }), 413, -32600],
  [
    'a text/plain body',
    () => rpc('GetTask', { id: 'x' }),
    415,
    -32600,
    { 'content-type': 'text/plain' },
  ],
  // Alice's own bad answers to her paused task: refused, the task still waits.
  [
    'decisions of a bad status',
    () =>
      send([{ data: { decisions: [{ id: alice.callId, status: 'maybe' }] } }], {
        taskId: alice.taskId,
      }),
    200,
    -32602,
    {},
    'alice',
  ],
  [
    'a decision for an unknown call',
    () =>
      send([{ data: { decisions: [{ id: 'nope', status: 'approved' }] } }], {
        taskId: alice.taskId,
      }),
    200,
    -32602,
    {},
    'alice',
  ],
  [
    'an answer that is neither approve nor deny',
    () => send([text('perhaps')], { taskId: alice.taskId }),
    200,
    -32602,
    {},
    'alice',
  ],
  [
    'a contextId not the task’s',
    () => send([text('approve')], { taskId: alice.taskId, contextId: 'other' }),
    200,
    -32602,
    {},
    'alice',
  ],
];

describe('the A2A server refuses bad input with JSON-RPC errors and changes nothing', () => {
  it.each(cases)(
    'refuses %s',
    async (_name, body, status, code, headers = {}, principal = 'mallory') => {
      const answer = await post(body(), headers, principal);
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code } });
      expect(typeof answer.body.error?.message).toBe('string');
      expect(answer.body.result).toBeUndefined();
    },
  );

  it("carries the kernel's code in A2A's ErrorInfo", async () => {
    const answer = await post(rpc('GetTask', { id: alice.taskId }));
    expect(answer.body.error).toMatchObject({
      code: -32001,
      data: [
        { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { code: 'not-found' } },
      ],
    });
  });

  it('an unknown agent and a GET of the JSON-RPC URL are 404s', async () => {
    const unknown = await post(
      rpc('GetTask', { id: 'x' }),
      {},
      'mallory',
      `${stack.streamUrl}/a2a/nope/`,
    );
    const get = await fetch(agentUrl(), {
      headers: { authorization: `Bearer ${await stack.tokenFor('mallory')}` },
    });
    expect(unknown.status).toBe(404);
    expect(get.status).toBe(404);
    expect(await get.text()).not.toContain('"result"');
  });

  it('nothing changed: mallory has no session, alice’s task still waits and booked nothing', async () => {
    const sessions = await http(stack, 'mallory', 'GET', '/sessions');
    const task = await post(rpc('GetTask', { id: alice.taskId }), {}, 'alice');
    const [sessionId, runId] = alice.taskId.split('~');
    const run = await http(stack, 'alice', 'GET', `/sessions/${sessionId}/runs/${runId}`);

    expect(sessions.body.sessions).toEqual([]);
    expect(task.body.result?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(run.body).toMatchObject({ status: 'paused' });
  });
});
