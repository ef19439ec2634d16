import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';

/** One real execution of a remote tool: what the tests count. */
export interface RemoteEffect {
  tool: string;
  args: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
}

const TOOLS: Tool[] = [
  {
    name: 'pay',
    description: 'Send money',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'string' }, amount: { type: 'number' } },
      required: ['to', 'amount'],
    },
  },
  {
    name: 'balance',
    description: 'Read the balance',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'refund',
    description: 'Refund a payment (once per key)',
    inputSchema: {
      type: 'object',
      properties: { payment: { type: 'string' }, idempotency_key: { type: 'string' } },
      required: ['payment', 'idempotency_key'],
    },
    annotations: { idempotentHint: true, destructiveHint: false },
  },
];

/**
 * A remote MCP server (the SDK's stateless streamable HTTP transport on a real socket) whose
 * tools record each real execution in `effects`.
 */
export function startRemoteMcp(): Promise<{
  url: string;
  effects: RemoteEffect[];
  close(): Promise<void>;
}> {
  const effects: RemoteEffect[] = [];
  const mcp = () => {
    const server = new Server({ name: 'remote', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      effects.push({ tool: request.params.name, args, meta: request.params._meta });
      if (request.params.name === 'pay') {
        return { content: [{ type: 'text', text: `sent ${args.amount} to ${args.to}` }] };
      }
      if (request.params.name === 'balance') {
        return { content: [{ type: 'text', text: '90' }], structuredContent: { balance: 90 } };
      }
      if (request.params.name === 'refund') {
        return { content: [{ type: 'text', text: `refunded ${args.payment}` }] };
      }
      return { content: [{ type: 'text', text: 'no such tool' }], isError: true };
    });
    return server;
  };
  const http: HttpServer = createServer(async (req, res) => {
    // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    // Stateless: a server and a transport per request, as the spec's stateless mode has it.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcp();
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () => {
      const { port } = http.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        effects,
        close: () => new Promise<void>((done) => http.close(() => done())),
      });
    });
  });
}

/** Starts the remote server for a suite; `effects` is cleared per test by the caller if needed. */
export function useRemoteMcp() {
  const state = { url: '', effects: [] as RemoteEffect[] };
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const started = await startRemoteMcp();
    state.url = started.url;
    state.effects = started.effects;
    close = started.close;
  });
  afterAll(() => close());
  return state;
}
