import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionTool } from '@strands-agents/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { strandsAgent } from '../../../lib/frameworks/strands/index.js';
import {
  InMemoryPausedRunStore,
  InMemoryRunJournalStore,
  InMemorySessionStore,
} from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-strands-interrupt-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A native tool that asks a person which account to pay from (Strands' `context.interrupt`). */
function payFromAccount(effects: string): FunctionTool {
  return new FunctionTool({
    name: 'pay',
    description: 'Pay someone from an account the user picks',
    inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
    callback: async (input, context) => {
      const account = context.interrupt<string>({ name: 'account', reason: 'Which account?' });
      await appendFile(effects, `${(input as { to: string }).to} from ${account}\n`);
      return `paid ${(input as { to: string }).to} from ${account}`;
    },
  });
}

describe('strands: a tool’s own interrupt', () => {
  it.each([
    ['without a journal', false],
    ['with a journal', true],
  ])(
    '%s: pauses for input, and the answer reaches the tool, which runs once',
    async (_l, journaled) => {
      // Prepare
      const effects = join(dir, `${journaled}.log`);
      const runtime = new Runtime({
        sessions: new InMemorySessionStore(),
        pausedRuns: new InMemoryPausedRunStore(),
        ...(journaled ? { journal: new InMemoryRunJournalStore() } : {}),
        agents: [
          strandsAgent({
            name: 'agent',
            model: offlineBedrock(server.url),
            tools: [payFromAccount(effects)],
          }),
        ],
      });
      server.push({ toolCalls: [{ name: 'pay', arguments: { to: 'bob' } }] }, { text: 'Paid.' });

      // Act
      const paused = await runtime.run('agent', 's-input', 'Pay Bob');
      const id = paused.status === 'paused' ? (paused.interruptions[0]?.id ?? '') : '';
      const done = await runtime.resume('s-input', paused.runId, [
        { id, status: 'approved', arguments: 'savings' },
      ]);

      // Assess
      expect(paused).toMatchObject({
        status: 'paused',
        interruptions: [{ kind: 'input', message: 'Which account?' }],
      });
      expect(done).toMatchObject({ status: 'completed', text: 'Paid.' });
      expect(await readFile(effects, 'utf8')).toBe('bob from savings\n');
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]?.body)).toContain('paid bob from savings');
    },
  );
});
