import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { localSqsClient } from '../../../lib/local/sqs.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { connect } from './ws-client.js';

// One input gate for every front (docs/protocol.md "Checking an inbound message"): the same
// malformed inputs sent to the WebSocket API, POST /runs, decisions, the stream URL's SSE
// POST /runs and POST /ag-ui, and a direct invoke, over the real local stack. Each answers the
// same typed code, and nothing is stored or run.
let stack: LocalStack;
const invocations: string[] = [];
let ws: WebSocket;
const wsInbox: any[] = [];
const wsWaiters: ((m: any) => void)[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  stack = await startLocalStack({ onInvoke: (name) => invocations.push(name) });
  ws = await connect(stack.wsUrl, await stack.tokenFor('gate-user'));
  ws.on('message', (data) => {
    const message = JSON.parse(String(data));
    const waiter = wsWaiters.shift();
    if (waiter) waiter(message);
    else wsInbox.push(message);
  });
}, 60_000);
afterAll(async () => {
  ws?.close();
  await stack?.stop();
});

type Raw = string | Uint8Array;
interface Answer {
  code: string | undefined;
  status?: number;
}

/** The next message the WebSocket receives. */
function nextWs(): Promise<any> {
  const queued = wsInbox.shift();
  if (queued) return Promise.resolve(queued);
  return new Promise((resolve) => wsWaiters.push(resolve));
}

async function post(url: string, raw: Raw, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await stack.tokenFor('gate-user')}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: raw,
  });
  const text = await response.text();
  let code: string | undefined;
  try {
    code = JSON.parse(text).code;
  } catch {
    code = `not JSON: ${text.slice(0, 80)}`;
  }
  return { status: response.status, code };
}

const DELETE = Symbol('delete');
interface Fields {
  agent?: unknown;
  session?: unknown;
  input?: unknown;
}

/** A front: how a valid run looks on it (with fields replaced), and how it answers. */
interface Front {
  name: string;
  /** Undefined: the front has no such fields (decisions) or takes no raw bytes (invoke). */
  payload?: (fields: Fields, i: number) => Record<string, unknown>;
  raw: boolean;
  send: (raw: Raw) => Promise<Answer>;
}

const put = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (value === DELETE) delete target[key];
  else if (value !== undefined) target[key] = value;
  return target;
};

const runFields = (f: Fields, i: number) => {
  const body: Record<string, unknown> = { agent: 'demo', sessionId: `gate-s-${i}`, input: 'hi' };
  put(body, 'agent', f.agent);
  put(body, 'sessionId', f.session);
  return put(body, 'input', f.input);
};

const FRONTS: Front[] = [
  {
    name: 'WebSocket run',
    raw: true,
    payload: (f, i) => ({ action: 'run', requestId: `gate-${i}`, ...runFields(f, i) }),
    send: async (raw) => {
      ws.send(raw, { binary: typeof raw !== 'string' });
      const answer = await nextWs();
      return { code: answer.type === 'error' ? answer.code : `answered ${answer.type}` };
    },
  },
  {
    name: 'POST /runs',
    raw: true,
    payload: runFields,
    send: (raw) => post(`${stack.httpUrl}/runs`, raw),
  },
  {
    name: 'SSE POST /runs',
    raw: true,
    payload: runFields,
    send: (raw) => post(`${stack.streamUrl}/runs`, raw, { accept: 'text/event-stream' }),
  },
  {
    name: 'POST /ag-ui',
    raw: true,
    payload: (f, i) => {
      const message = put({ id: 'm1', role: 'user', content: 'hi' }, 'content', f.input);
      const props = put({ agent: 'demo' }, 'agent', f.agent);
      return put(
        { threadId: `gate-s-${i}`, runId: 'client-1', messages: [message], forwardedProps: props },
        'threadId',
        f.session,
      );
    },
    send: (raw) => post(`${stack.streamUrl}/ag-ui`, raw),
  },
  {
    name: 'invoke',
    // Lambda parses an invoke payload itself: bytes that are not JSON never reach the function.
    raw: false,
    payload: (f, i) => ({ action: 'run', principal: 'gate-user', ...runFields(f, i) }),
    send: async (raw) => {
      const answer = (await stack.invoke(JSON.parse(String(raw)))) as {
        type?: string;
        code?: string;
      };
      return { code: answer.type === 'error' ? answer.code : `answered ${JSON.stringify(answer)}` };
    },
  },
  {
    name: 'POST decisions',
    raw: true,
    send: (raw) => post(`${stack.httpUrl}/sessions/gate-d/runs/r1/decisions`, raw),
  },
];

const bytes = (text: string, at: string, inject: number[]) => {
  const [before, after] = text.split(at) as [string, string];
  const enc = new TextEncoder();
  return Uint8Array.from([...enc.encode(before), ...inject, ...enc.encode(after)]);
};
/** A field of any payload: decisions get it too (the generic cases need no run fields). */
const withField = (front: Front, i: number, key: string, value: string) => {
  const base = front.payload
    ? front.payload({}, i)
    : { decisions: [{ id: 'c', status: 'approved' }] };
  return JSON.stringify(base).replace(/^\{/, `{${JSON.stringify(key)}:${value},`);
};
const nest = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

type Build = (front: Front, i: number) => Raw | undefined;
const generic = (make: (front: Front, i: number) => Raw): Build => make;
const rawOnly =
  (raw: Raw): Build =>
  (front) =>
    front.raw ? raw : undefined;
const fields =
  (f: Fields): Build =>
  (front, i) =>
    front.payload ? JSON.stringify(front.payload(f, i)) : undefined;

const CASES: [string, Build, string][] = [
  // bytes and JSON
  ['not JSON', rawOnly('{"agent": "demo",'), 'bad-json'],
  ['an empty body', rawOnly(''), 'bad-json'],
  ['trailing garbage', rawOnly('{"agent":"demo"}x'), 'bad-json'],
  ['a JSON array', rawOnly('[]'), 'invalid-message'],
  ['a JSON string', rawOnly('"hi"'), 'invalid-message'],
  ['JSON null', rawOnly('null'), 'invalid-message'],
  ['a JSON number', rawOnly('42'), 'invalid-message'],
  [
    'UTF-8: 0xff',
    (f, i) => (f.raw ? bytes(withField(f, i, 'x', '"@"'), '@', [0xff]) : undefined),
    'invalid-utf8',
  ],
  [
    'UTF-8: overlong',
    (f, i) => (f.raw ? bytes(withField(f, i, 'x', '"@"'), '@', [0xc0, 0xaf]) : undefined),
    'invalid-utf8',
  ],
  [
    'UTF-8: surrogate',
    (f, i) => (f.raw ? bytes(withField(f, i, 'x', '"@"'), '@', [0xed, 0xa0, 0x80]) : undefined),
    'invalid-utf8',
  ],
  [
    'UTF-8: truncated',
    (f, i) => (f.raw ? bytes(withField(f, i, 'x', '"@"'), '@', [0xe2, 0x82]) : undefined),
    'invalid-utf8',
  ],
  // size and depth
  [
    '200 KB of padding',
    generic((f, i) => withField(f, i, 'pad', JSON.stringify('x'.repeat(200_000)))),
    'too-large',
  ],
  [
    '1 MB of padding',
    generic((f, i) => withField(f, i, 'pad', JSON.stringify('x'.repeat(1_000_000)))),
    'too-large',
  ],
  ['100,000-deep nesting', generic((f, i) => withField(f, i, 'x', nest(100_000))), 'too-large'],
  ['65-deep nesting', generic((f, i) => withField(f, i, 'x', nest(65))), 'too-deep'],
  ['1,000-deep nesting', generic((f, i) => withField(f, i, 'x', nest(1_000))), 'too-deep'],
  // keys
  [
    'a __proto__ key',
    generic((f, i) => withField(f, i, '__proto__', '{"admin":true}')),
    'forbidden-key',
  ],
  ['a constructor key', generic((f, i) => withField(f, i, 'constructor', '{}')), 'forbidden-key'],
  ['a prototype key', generic((f, i) => withField(f, i, 'prototype', '{}')), 'forbidden-key'],
  [
    'a nested __proto__',
    generic((f, i) => withField(f, i, 'x', '{"y":[{"__proto__":1}]}')),
    'forbidden-key',
  ],
  [
    'an escaped __proto__',
    generic((f, i) => withField(f, i, '\\u005f_proto__', '1').replace('"\\\\u005f', '"\\u005f')),
    'forbidden-key',
  ],
  // strict schema
  ['an unknown field', generic((f, i) => withField(f, i, 'priority', '1')), 'invalid-message'],
  ['agent: 5', fields({ agent: 5 }), 'invalid-message'],
  ['agent: null', fields({ agent: null }), 'invalid-message'],
  ['agent: ""', fields({ agent: '' }), 'invalid-message'],
  ['agent: "../x"', fields({ agent: '../x' }), 'invalid-message'],
  ['agent: 65 characters', fields({ agent: 'a'.repeat(65) }), 'invalid-message'],
  ['agent with a space', fields({ agent: 'de mo' }), 'invalid-message'],
  ['an unknown agent', fields({ agent: 'nope' }), 'agent-not-found'],
  ['session: "a b"', fields({ session: 'a b' }), 'invalid-message'],
  ['session: 129 characters', fields({ session: 's'.repeat(129) }), 'invalid-message'],
  ['session: 5', fields({ session: 5 }), 'invalid-message'],
  ['session: ""', fields({ session: '' }), 'invalid-message'],
  ['session with NUL', fields({ session: 'a\u0000b' }), 'invalid-message'],
  ['session: "../x"', fields({ session: '../x' }), 'invalid-message'],
  ['input: ""', fields({ input: '' }), 'invalid-message'],
  ['no input', fields({ input: DELETE }), 'invalid-message'],
  ['input: 5', fields({ input: 5 }), 'invalid-message'],
  ['input: null', fields({ input: null }), 'invalid-message'],
  ['input: a request without its text', fields({ input: [{ type: 'text' }] }), 'invalid-message'],
  ['input: 100,000 characters', fields({ input: 'x'.repeat(100_000) }), 'too-large'],
  ['input: 33,000 three-byte characters', fields({ input: '€'.repeat(33_000) }), 'too-large'],
];

async function scanAll(): Promise<string[]> {
  const client = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
  });
  const items: string[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: process.env.TABLE_NAME, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) items.push(JSON.stringify(item));
    start = page.LastEvaluatedKey;
  } while (start);
  client.destroy();
  return items.sort();
}

describe('one input gate, every front', () => {
  it(`answers ${CASES.length} malformed inputs with the same typed code everywhere, storing and running nothing`, async () => {
    // Prepare
    const before = await scanAll();
    invocations.length = 0;

    // Act
    const got: Record<string, Record<string, string | undefined>> = {};
    const expected: typeof got = {};
    let sent = 0;
    for (const [i, [name, build, code]] of CASES.entries()) {
      for (const front of FRONTS) {
        const raw = build(front, i);
        if (raw === undefined) continue;
        const answer = await front.send(raw);
        const status = answer.status !== undefined && answer.status < 400;
        got[name] = {
          ...got[name],
          [front.name]: status ? `status ${answer.status}` : answer.code,
        };
        expected[name] = { ...expected[name], [front.name]: code };
        sent++;
      }
    }
    const after = await scanAll();

    // Assess
    expect(got).toEqual(expected);
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(sent).toBeGreaterThan(CASES.length * 4);
    expect(after).toEqual(before);
    expect(invocations.filter((name) => name === 'worker')).toEqual([]);
  }, 120_000);

  it('answers the statuses of its codes on HTTP: 413 too-large, 400 the rest', async () => {
    // Act
    const big = await post(
      `${stack.streamUrl}/ag-ui`,
      withField(FRONTS[3] as Front, 0, 'pad', JSON.stringify('x'.repeat(1_000_000))),
    );
    const deep = await post(
      `${stack.httpUrl}/runs`,
      withField(FRONTS[1] as Front, 0, 'x', nest(100)),
    );
    const utf8 = await post(
      `${stack.streamUrl}/runs`,
      bytes(withField(FRONTS[2] as Front, 0, 'x', '"@"'), '@', [0xff]),
      {
        accept: 'text/event-stream',
      },
    );

    // Assess
    expect(big).toEqual({ status: 413, code: 'too-large' });
    expect(deep).toEqual({ status: 400, code: 'too-deep' });
    expect(utf8).toEqual({ status: 400, code: 'invalid-utf8' });
  });

  it('the approvals queue drops the same malformed decisions and stores nothing', async () => {
    // Prepare: the cases SQS can carry (valid Unicode, under 256 KB)
    const sqs = localSqsClient(stack.sqsEndpoint);
    const QueueUrl = stack.queues.approvals;
    const decision = {
      sessionId: 'gate-appr',
      runId: 'r1',
      principal: 'gate-user',
      decisions: [{ id: 'c', status: 'approved' }],
    };
    const text = JSON.stringify(decision);
    const field = (key: string, value: string) =>
      text.replace(/^\{/, `{${JSON.stringify(key)}:${value},`);
    const bodies = [
      '{"sessionId":',
      '[]',
      '42',
      field('pad', JSON.stringify('x'.repeat(200_000))),
      field('x', nest(65)),
      field('__proto__', '{"admin":true}'),
      field('constructor', '{}'),
      field('prototype', '{}'),
      field('priority', '1'),
      JSON.stringify({ ...decision, principal: '' }),
      JSON.stringify({ ...decision, sessionId: 'a b' }),
      JSON.stringify({ ...decision, decisions: [] }),
    ];
    const before = await scanAll();

    // Act
    for (const MessageBody of bodies)
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody }));
    await expect
      .poll(
        async () => {
          const { Attributes } = await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl,
              AttributeNames: [
                'ApproximateNumberOfMessages',
                'ApproximateNumberOfMessagesNotVisible',
              ],
            }),
          );
          return (
            Number(Attributes?.ApproximateNumberOfMessages) +
            Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
          );
        },
        { timeout: 30_000 },
      )
      .toBe(0);
    sqs.destroy();

    // Assess: consumed (not retried, not dead-lettered), nothing stored, nothing run
    expect(invocations).toContain('approvals');
    expect(await scanAll()).toEqual(before);
    expect(invocations.filter((name) => name === 'worker')).toEqual([]);
  });

  it('still runs a valid request on every front afterwards', async () => {
    // Act
    const http = await post(`${stack.httpUrl}/runs`, JSON.stringify(runFields({}, 900)));
    const agUi = await fetch(`${stack.streamUrl}/ag-ui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stack.tokenFor('gate-user')}` },
      body: JSON.stringify((FRONTS[3] as Front).payload?.({}, 901)),
    });
    const stream = await agUi.text();
    ws.send(JSON.stringify({ action: 'run', requestId: 'ok-ws', ...runFields({}, 902) }));
    const accepted = await nextWs();

    // Assess
    expect(http.status).toBe(200);
    expect(agUi.status).toBe(200);
    expect(stream).toContain('RUN_FINISHED');
    expect(accepted).toMatchObject({ type: 'accepted', requestId: 'ok-ws' });
  });
});
