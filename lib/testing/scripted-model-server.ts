import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildChatChunks, buildChatCompletion } from './scripted-model-server/chat-api.js';
import {
  converseRoute,
  sendConverse,
  sendConverseError,
} from './scripted-model-server/converse-api.js';
import {
  buildGeminiChunks,
  buildGeminiResponse,
  geminiRoute,
  resolveGeminiTurn,
  sendGeminiError,
} from './scripted-model-server/gemini-api.js';
import {
  isGone,
  nextTick,
  readBody,
  sendError,
  sendJson,
  startSse,
  writeSse,
} from './scripted-model-server/http.js';
import { buildResponse } from './scripted-model-server/responses-api.js';
import {
  isErrorTurn,
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedError,
  type ScriptedTurn,
  validateEntry,
  validateTurn,
} from './scripted-model-server/script.js';
import { hexId, resolveTurn } from './scripted-model-server/turn.js';

export type {
  RecordedRequest,
  ScriptEntry,
  ScriptedToolCall,
  ScriptedTurn,
} from './scripted-model-server/script.js';

export interface ScriptedModelServerOptions {
  script?: ScriptEntry[];
  /** Answers every request once the script is used up; without it such requests get HTTP 500. */
  fallback?: ScriptEntry;
  /**
   * Every tool call gets a fresh random call id in every response, even when the script names
   * one, as real models do: a test cannot pass because a re-run model repeated the same ids.
   */
  freshCallIds?: boolean;
  /** Characters per streamed text or arguments delta (default 8). */
  chunkSize?: number;
  /**
   * A pause between streamed chunks (default 0: as fast as the socket takes them), so streaming
   * is visible to a person: the local stack paces its offline model (AGENT_KERNEL_OFFLINE_*).
   */
  chunkDelayMs?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
}

export interface ScriptedModelServer {
  /** Base URL including `/v1`, usable as an OpenAI client's `baseURL`. */
  readonly url: string;
  readonly port: number;
  /** Every model request received, in arrival order. */
  readonly requests: RecordedRequest[];
  push(...entries: ScriptEntry[]): void;
  /** Clears the script and the recorded requests, then loads `script` if given. */
  reset(script?: ScriptEntry[]): void;
  /** Entries left in the script (the fallback does not count). */
  remaining(): number;
  close(): Promise<void>;
}

const MODEL_PATHS: Record<string, RecordedRequest['api']> = {
  '/v1/responses': 'responses',
  '/v1/chat/completions': 'chat',
};
const MODEL_ID = 'scripted-model';

function defaultErrorType(status: number): string {
  if (status === 429) return 'requests';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function sendScriptedError(res: ServerResponse, { error }: ScriptedError): void {
  const headers: Record<string, string> = {};
  if (error.status === 429 && error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(error.retryAfterSeconds);
  }
  sendError(
    res,
    error.status,
    {
      message: error.message ?? `scripted model server: scripted error ${error.status}`,
      type: error.type ?? defaultErrorType(error.status),
      code: error.code ?? (error.status === 429 ? 'rate_limit_exceeded' : null),
    },
    headers,
  );
}

function serverError(res: ServerResponse, message: string): void {
  sendError(res, 500, { message: `scripted model server: ${message}`, type: 'server_error' });
}

/**
 * Starts a model server on localhost (OpenAI-compatible, and Gemini's `generateContent`) whose answers come from a script, so
 * agents can be tested offline against the real client libraries.
 */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const chunkSize = options.chunkSize ?? 8;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new Error('scripted model server: chunkSize must be a positive integer');
  }
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  if (!Number.isFinite(chunkDelayMs) || chunkDelayMs < 0) {
    throw new Error('scripted model server: chunkDelayMs must be a number ≥ 0');
  }
  const fallback =
    options.fallback === undefined ? undefined : validateEntry(options.fallback, 'fallback');
  const script: ScriptEntry[] = [];
  const requests: RecordedRequest[] = [];
  // Aborted on close so that pending `delayMs` waits end with the server.
  const lifetime = new AbortController();
  // Validates every entry before any is added, so a bad one leaves the script as it was.
  /** Between two streamed chunks: the pace, else one tick (the socket flushes each chunk). */
  const betweenChunks = () =>
    chunkDelayMs > 0
      ? sleep(chunkDelayMs, undefined, { signal: lifetime.signal }).catch(() => undefined)
      : nextTick();
  const check = (entries: ScriptEntry[]) =>
    entries.map((entry, i) => validateEntry(entry, `script entry ${i}`));

  async function nextTurn(recorded: RecordedRequest): Promise<ScriptedTurn | string> {
    const entry = script.shift() ?? fallback;
    if (entry === undefined) return 'script exhausted';
    if (typeof entry !== 'function') return entry;
    try {
      return validateTurn(await entry(recorded), 'turn returned by a script function');
    } catch (error) {
      return `script function failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  async function answerModelRequest(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    api: RecordedRequest['api'],
    gemini?: { model: string; stream: boolean },
  ): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      sendError(res, 400, {
        message: 'We could not parse the JSON body of your request. The API expects a JSON object.',
        type: 'invalid_request_error',
      });
      return;
    }
    const recorded: RecordedRequest = {
      path,
      api,
      // Gemini and Converse stream by path, the OpenAI APIs by a body field.
      stream:
        gemini?.stream ??
        converseRoute(path)?.stream ??
        (body as { stream?: unknown }).stream === true,
      body,
      headers: { ...req.headers },
      receivedAt: Date.now(),
    };
    requests.push(recorded);

    const turn = await nextTurn(recorded);
    if (typeof turn === 'string') {
      serverError(res, turn);
      return;
    }
    if (isErrorTurn(turn)) {
      if (gemini) sendGeminiError(res, turn);
      else if (api === 'converse') sendConverseError(res, turn);
      else sendScriptedError(res, turn);
      return;
    }
    if (turn.delayMs) {
      await sleep(turn.delayMs, undefined, { signal: lifetime.signal }).catch(() => undefined);
    }
    if (lifetime.signal.aborted) {
      res.destroy();
      return;
    }
    if (isGone(res)) return;

    const freshCallIds = options.freshCallIds === true;
    if (turn.failAfterOutput && (gemini || api === 'converse')) {
      serverError(
        res,
        'failAfterOutput is scripted for the Responses and Chat Completions APIs only',
      );
      return;
    }
    if (gemini) {
      const resolved = resolveGeminiTurn(turn, body, { freshCallIds });
      if (!recorded.stream) {
        sendJson(res, 200, buildGeminiResponse(resolved, gemini.model));
        return;
      }
      startSse(res);
      for (const chunk of buildGeminiChunks(resolved, gemini.model, chunkSize)) {
        writeSse(res, chunk);
        await betweenChunks();
      }
      if (!isGone(res)) res.end();
      return;
    }
    const resolved = resolveTurn(
      turn,
      body,
      api === 'converse' ? 'chat' : (api as 'responses' | 'chat'),
      {
        freshCallIds,
      },
    );
    if (api === 'converse') {
      await sendConverse(res, resolved, recorded.stream, chunkSize);
      return;
    }
    if (api === 'responses') {
      const { response, events } = buildResponse(resolved, body, chunkSize);
      if (!recorded.stream) {
        sendJson(res, 200, response);
        return;
      }
      startSse(res);
      for (const event of events) {
        writeSse(res, event, event.type as string);
        await betweenChunks();
      }
    } else {
      if (!recorded.stream) {
        sendJson(res, 200, buildChatCompletion(resolved, body));
        return;
      }
      startSse(res);
      for (const chunk of buildChatChunks(resolved, body, chunkSize)) {
        writeSse(res, chunk);
        await betweenChunks();
      }
      writeSse(res, '[DONE]');
    }
    if (!isGone(res)) res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The official clients expose this as `_request_id`, as with the real API.
    res.setHeader('x-request-id', hexId('req_', 16));
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const gemini = req.method === 'POST' ? geminiRoute(path) : undefined;
    if (gemini) {
      await answerModelRequest(req, res, path, 'gemini', gemini);
      return;
    }
    const api =
      req.method === 'POST'
        ? (MODEL_PATHS[path] ?? (converseRoute(path) && 'converse'))
        : undefined;
    if (api) {
      await answerModelRequest(req, res, path, api);
      return;
    }
    req.resume();
    const model = { id: MODEL_ID, object: 'model', created: 0, owned_by: 'scripted-model-server' };
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [model] });
    } else if (req.method === 'GET' && path === `/v1/models/${MODEL_ID}`) {
      sendJson(res, 200, model);
    } else {
      sendError(res, 404, {
        message: `Invalid URL (${req.method} ${path})`,
        type: 'invalid_request_error',
      });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Headers already sent means a stream broke: cut it so the client sees a failure.
      if (res.headersSent) res.destroy();
      else serverError(res, `internal error: ${String(error)}`);
    });
  });

  script.push(...check(options.script ?? []));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${host}:${port}/v1`,
    port,
    requests,
    push(...entries: ScriptEntry[]) {
      script.push(...check(entries));
    },
    reset(entries: ScriptEntry[] = []) {
      const checked = check(entries);
      script.length = 0;
      requests.length = 0;
      script.push(...checked);
    },
    remaining: () => script.length,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        lifetime.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and mid-stream sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
