import { afterAll, beforeAll } from 'vitest';
import type WebSocket from 'ws';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { connect } from './ws-client.js';

/** A WebSocket client of one principal that keeps every message it ever receives. */
export class WsUser {
  readonly messages: any[] = [];
  readonly #waiters: { test: (m: any) => boolean; resolve: (m: any) => void }[] = [];

  private constructor(
    readonly principal: string,
    readonly socket: WebSocket,
  ) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      this.messages.push(message);
      for (const waiter of [...this.#waiters]) {
        if (!waiter.test(message)) continue;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    });
  }

  static async connect(stack: LocalStack, principal: string): Promise<WsUser> {
    return new WsUser(principal, await connect(stack.wsUrl, await stack.tokenFor(principal)));
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The first message (already received or still to come) that passes `test`. */
  next(test: (m: any) => boolean, budgetMs = 20_000): Promise<any> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${this.principal}: no such message in ${JSON.stringify(this.messages)}`),
          ),
        budgetMs,
      );
      this.#waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** The answer (`accepted` or `error`) to the request with this id. */
  answer(requestId: string): Promise<any> {
    return this.next(
      (m) => m.requestId === requestId && (m.type === 'accepted' || m.type === 'error'),
    );
  }

  /** The terminal event of a run, seen by this client. */
  terminal(runId: string): Promise<any> {
    return this.next(
      (m) =>
        m.type === 'events' &&
        m.runId === runId &&
        m.events.some((e: any) => ['run-finished', 'run-paused', 'run-error'].includes(e.type)),
    );
  }

  /** Every `events` message received, by session. */
  eventSessions(): Set<string> {
    return new Set(this.messages.filter((m) => m.type === 'events').map((m) => m.sessionId));
  }

  close(): void {
    this.socket.close();
  }
}

/** One HTTP request as a principal: status and parsed body. */
export async function http(
  stack: LocalStack,
  principal: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      'content-type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Resolves after `ms`: lets queued work (worker, fan-out) deliver whatever it would. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The test file's local stack (offline model, in-process stores: no key, table or endpoint from
 * the environment), started before its tests and stopped after them.
 */
export function useLocalStack(): LocalStack {
  const stack = {} as LocalStack;
  let started: LocalStack | undefined;
  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
      delete process.env[key];
    }
    started = await startLocalStack();
    Object.defineProperties(stack, Object.getOwnPropertyDescriptors(started));
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  });
  return stack;
}

/** Opens a principal's WebSocket on `stack`; every one is closed when the test file ends. */
export function useWsUsers(stack: LocalStack): (principal: string) => Promise<WsUser> {
  const users: WsUser[] = [];
  afterAll(() => {
    for (const user of users) user.close();
  });
  return async (principal) => {
    const client = await WsUser.connect(stack, principal);
    users.push(client);
    return client;
  };
}
