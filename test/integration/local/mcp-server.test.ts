import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from './clients.js';

const stack = useLocalStack();

interface Text {
  text: string;
}
type RunRef = {
  sessionId: string;
  runId: string;
};
interface Paused {
  resume: { tool: string; arguments: RunRef & { decisions: unknown[]; [k: string]: unknown } };
  interruptions: { id: string }[];
}

/** The official SDK client, as a principal, on the stream function's `/mcp`. */
async function clientAs(principal: string): Promise<Client> {
  const token = await stack.tokenFor(principal);
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.streamUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  return client;
}

/** One raw JSON-RPC POST (what a broken or hostile client sends). */
async function post(body: string, headers: Record<string, string> = {}, principal = 'mallory') {
  const response = await fetch(`${stack.streamUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const call = (name: string, args: unknown, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('the MCP server on the stream function (local stack)', () => {
  it('lists each agent as a tool, with annotations from declared effects', async () => {
    const client = await clientAs('alice');
    const { tools } = await client.listTools();
    await client.close();

    const names = tools.map((t) => t.name);
    expect(names).toContain('demo');
    expect(names).toEqual(expect.arrayContaining(['resume_run', 'read_run']));
    // An agent's run has effects unless declared otherwise; reading a run changes nothing.
    expect(tools.find((t) => t.name === 'demo')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(tools.find((t) => t.name === 'read_run')?.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(tools.find((t) => t.name === 'resume_run')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(tools.find((t) => t.name === 'demo')?.inputSchema.required).toEqual(['message']);
  });

  it('calls an agent: its reply as text and as structured content', async () => {
    const client = await clientAs('alice');
    const result = await client.callTool({
      name: 'demo',
      arguments: { message: 'What is the weather in Paris?' },
    });
    await client.close();

    expect(result.isError).toBeFalsy();
    expect((result.content as Text[])[0]?.text).toContain('Paris');
    expect(result.structuredContent).toMatchObject({ status: 'completed', agent: 'demo' });
  });

  it('a paused call is a typed result naming resume_run; the decision resumes it once', async () => {
    // Prepare
    const client = await clientAs('alice');

    // Act
    const paused = await client.callTool({
      name: 'demo',
      arguments: { message: 'book a table for 2 at 8pm' },
    });
    const { resume, interruptions } = paused.structuredContent as unknown as Paused;
    const done = await client.callTool({ name: resume.tool, arguments: resume.arguments });
    const again = client.callTool({ name: resume.tool, arguments: resume.arguments });
    const read = await client.callTool({
      name: 'read_run',
      arguments: { sessionId: resume.arguments.sessionId, runId: resume.arguments.runId },
    });

    // Assess
    expect(paused.structuredContent).toMatchObject({ status: 'paused' });
    expect(interruptions[0]).toMatchObject({ kind: 'tool-approval', toolName: 'book_table' });
    expect((paused.content as Text[])[0]?.text).toContain('resume_run');
    expect(resume.arguments.decisions).toEqual([{ id: interruptions[0]?.id, status: 'approved' }]);
    expect(done.structuredContent).toMatchObject({ status: 'completed' });
    // Once resumed, the run is paused no more: a second answer resumes nothing.
    await expect(again).rejects.toMatchObject({
      code: -32002,
      data: { code: 'paused-run-not-found' },
    });
    expect(read.structuredContent).toMatchObject({ status: 'completed' });
    await client.close();
  });

  it('the same idempotency key in _meta runs the turn once', async () => {
    const client = await clientAs('alice');
    const params = {
      name: 'demo',
      arguments: { message: 'What time is it?' },
      _meta: { 'io.agent-kernel/idempotency-key': 'mcp-key-1' },
    };
    const first = await client.callTool(params);
    const second = await client.callTool(params);
    await client.close();
    expect((second.structuredContent as RunRef).runId).toBe(
      (first.structuredContent as RunRef).runId,
    );
  });

  it('another principal’s session or run is not found', async () => {
    // Prepare
    const alice = await clientAs('alice');
    const mine = await alice.callTool({ name: 'demo', arguments: { message: 'What time is it?' } });
    const { sessionId, runId } = mine.structuredContent as RunRef;
    await alice.close();
    const bob = await clientAs('bob');

    // Act
    const run = bob.callTool({ name: 'demo', arguments: { message: 'hi', sessionId } });
    const read = bob.callTool({ name: 'read_run', arguments: { sessionId, runId } });
    const guessed = bob.callTool({ name: 'read_run', arguments: { sessionId: 'nope', runId } });

    // Assess
    for (const refused of [run, read, guessed]) {
      await expect(refused).rejects.toMatchObject({ code: -32002, data: { code: 'not-found' } });
    }
    await bob.close();
  });

  it('no token or a bad one is a 401 with a JSON-RPC error and a Bearer challenge', async () => {
    for (const authorization of [undefined, 'Bearer nope', 'Basic x']) {
      const response = await fetch(`${stack.streamUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    }
  });

  const long = 'x'.repeat(300);
  const cases: [string, string, Record<string, string>, number, number][] = [
    ['not JSON', '{', {}, 400, -32700],
    ['an empty body', '', {}, 400, -32700],
    ['JSON that is not JSON-RPC', '{"hello":1}', {}, 400, -32700],
    ['a JSON-RPC string', '"x"', {}, 400, -32700],
    ['wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', {}, 400, -32700],
    ['an unknown method', '{"jsonrpc":"2.0","id":1,"method":"nope"}', {}, 200, -32601],
    ['a method of numbers', '{"jsonrpc":"2.0","id":1,"method":42}', {}, 400, -32700],
    ['an unknown tool', call('no_such_agent', { message: 'hi' }), {}, 200, -32602],
    ['a tool name of 10 kB', call('a'.repeat(10_000), { message: 'hi' }), {}, 200, -32602],
    ['no message', call('demo', {}), {}, 200, -32602],
    ['an empty message', call('demo', { message: '' }), {}, 200, -32602],
    ['a numeric message', call('demo', { message: 5 }), {}, 200, -32602],
    ['a null message', call('demo', { message: null }), {}, 200, -32602],
    ['an object message', call('demo', { message: { a: 1 } }), {}, 200, -32602],
    ['an unknown argument', call('demo', { message: 'hi', extra: 1 }), {}, 200, -32602],
    ['arguments not an object', call('demo', 'hi'), {}, 200, -32602],
    ['a numeric sessionId', call('demo', { message: 'hi', sessionId: 7 }), {}, 200, -32602],
    ['an empty sessionId', call('demo', { message: 'hi', sessionId: '' }), {}, 200, -32602],
    ['a 300-char sessionId', call('demo', { message: 'hi', sessionId: long }), {}, 200, -32602],
    [
      'a message over the input gate',
      call('demo', { message: 'x'.repeat(300_000) }),
      {},
      200,
      -32602,
    ],
    [
      'resume without decisions',
      call('resume_run', { sessionId: 's', runId: 'r' }),
      {},
      200,
      -32602,
    ],
    [
      'resume with no decision',
      call('resume_run', { sessionId: 's', runId: 'r', decisions: [] }),
      {},
      200,
      -32602,
    ],
    [
      'resume with a bad status',
      call('resume_run', { sessionId: 's', runId: 'r', decisions: [{ id: 'a', status: 'maybe' }] }),
      {},
      200,
      -32602,
    ],
    [
      'resume of a run that does not exist',
      call('resume_run', {
        sessionId: 's-none',
        runId: 'r',
        decisions: [{ id: 'a', status: 'approved' }],
      }),
      {},
      200,
      -32002,
    ],
    ['read without runId', call('read_run', { sessionId: 's' }), {}, 200, -32602],
    [
      'read of a run that does not exist',
      call('read_run', { sessionId: 's', runId: 'r' }),
      {},
      200,
      -32002,
    ],
    [
      'tools/call without params',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      {},
      200,
      -32602,
    ],
    [
      'a text/plain body',
      call('demo', { message: 'hi' }),
      { 'content-type': 'text/plain' },
      415,
      -32000,
    ],
    [
      'no Accept of event streams',
      call('demo', { message: 'hi' }),
      { accept: 'application/json' },
      406,
      -32000,
    ],
    ['a body over 1 MiB', JSON.stringify({ pad: 'x'.repeat(1_100_000) }), {}, 413, -32600],
    [
      'a numeric idempotency key',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'demo',
          arguments: { message: 'hi' },
          _meta: { 'io.agent-kernel/idempotency-key': 7 },
        },
      }),
      {},
      200,
      -32602,
    ],
    [
      'an idempotency key with spaces',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'demo',
          arguments: { message: 'hi' },
          _meta: { 'io.agent-kernel/idempotency-key': 'a b' },
        },
      }),
      {},
      200,
      -32602,
    ],
    [
      'a 300-char idempotency key',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'demo',
          arguments: { message: 'hi' },
          _meta: { 'io.agent-kernel/idempotency-key': long },
        },
      }),
      {},
      200,
      -32602,
    ],
    [
      'an empty idempotency key',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'demo',
          arguments: { message: 'hi' },
          _meta: { 'io.agent-kernel/idempotency-key': '' },
        },
      }),
      {},
      200,
      -32602,
    ],
  ];

  // The SDK's transport answers a message that is not JSON-RPC with -32700 (its choice, kept).
  it.each(cases)('refuses %s with a JSON-RPC error', async (_name, body, headers, status, code) => {
    const answer = await post(body, headers);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code } });
    expect(typeof answer.body.error.message, JSON.stringify(answer.body)).toBe('string');
  });

  it('refused calls created nothing: mallory has no session', async () => {
    const client = await clientAs('mallory');
    const read = client.callTool({ name: 'read_run', arguments: { sessionId: 'x', runId: 'y' } });
    await expect(read).rejects.toMatchObject({ code: -32002 });
    await client.close();
  });

  it('GET and DELETE are 405 (stateless: no stream, no session)', async () => {
    const token = await stack.tokenFor('alice');
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${stack.streamUrl}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });
});
