import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handleA2aRequest } from '../../../lib/a2a/server.js';
import { NotFound } from '../../../lib/app/errors.js';
import type { FrontDoor } from '../../../lib/app/front-door.js';

/** A front door that refuses everything as not-found and counts what reached it. */
function countingDoor() {
  const calls: string[] = [];
  const refuse = (name: string) => async () => {
    calls.push(name);
    throw new NotFound('Session "x"');
  };
  const door = {
    runNow: refuse('runNow'),
    resumeNow: refuse('resumeNow'),
    readRun: refuse('readRun'),
  } as unknown as FrontDoor;
  return { door, calls };
}

const card = {
  name: 'demo',
  description: 'd',
  version: '1',
  capabilities: { streaming: true, pushNotifications: false, humanInTheLoop: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

const KNOWN = new Set([-32700, -32600, -32601, -32602, -32001, -32003, -32004, -32005, -32009]);
const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'message/send',
  'tasks/get',
  'ListTasks',
];

async function answer(body: string, version?: string) {
  const { door, calls } = countingDoor();
  const result = await handleA2aRequest({
    body,
    version,
    agent: 'demo',
    card,
    url: 'http://127.0.0.1/a2a/demo/',
    principal: 'mallory',
    door: () => door,
  });
  return { result, calls };
}

describe('handleA2aRequest on arbitrary input', () => {
  it('answers any JSON with a JSON-RPC error of a known code, and never a result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const { result } = await answer(JSON.stringify(value));
        expect(result.kind).toBe('json');
        const body = (
          result as { body: { jsonrpc: string; error?: { code: number }; result?: unknown } }
        ).body;
        expect(body.jsonrpc).toBe('2.0');
        expect(body.result).toBeUndefined();
        expect(KNOWN.has(body.error?.code ?? 0), JSON.stringify(body)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a well-formed envelope of any method, version and params: a known error, no result, no stack', async () => {
    const envelope = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null)),
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 })),
      params: fc.oneof(
        fc.jsonValue(),
        fc.record({ id: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()) }),
        fc.record({
          message: fc.record({
            messageId: fc.oneof(fc.uuid(), fc.integer()),
            role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user', 'x'),
            parts: fc.array(
              fc.oneof(fc.record({ text: fc.string({ maxLength: 20 }) }), fc.jsonValue()),
              { maxLength: 3 },
            ),
            taskId: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
          }),
        }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        envelope,
        fc.constantFrom(undefined, '1.0', '0.3', '2'),
        async (rpc, version) => {
          const { result } = await answer(JSON.stringify(rpc), version);
          if (result.kind === 'stream') return; // unreachable: the door refuses every call
          const body = (
            result as { body: { error?: { code: number; message: string }; result?: unknown } }
          ).body;
          expect(body.result).toBeUndefined();
          expect(KNOWN.has(body.error?.code ?? 0), JSON.stringify(body)).toBe(true);
          expect(body.error?.message).not.toMatch(/at \w+ \(|node_modules/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
