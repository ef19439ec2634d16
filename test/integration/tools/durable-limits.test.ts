import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Agent, Runtime } from '../../../lib/core/index.js';
import {
  InMemoryPausedRunStore,
  InMemoryRunJournalStore,
  InMemorySessionStore,
} from '../../../lib/stores/index.js';
import { defineTool, Executor, pauseForApproval } from '../../../lib/tools/index.js';
import { type Plan, PlanRunner } from './plan-runner.js';

const list = defineTool({
  name: 'list_files',
  description: 'List files',
  input: z.object({}),
  handler: () => ['a.txt'],
});
const remove = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string() }),
  confirm: true,
  handler: ({ path }) => `deleted ${path}`,
});

describe('run limits counted through the journal', () => {
  it('a run resumed on another instance continues its tool-call count', async () => {
    // Prepare: two instances sharing the stores, each with its own Executor.
    const shared = {
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      journal: new InMemoryRunJournalStore(),
    };
    const instance = () => {
      const executor = new Executor({ approval: pauseForApproval, limits: { toolCallsPerRun: 2 } });
      const runner = new PlanRunner([list, remove], executor);
      return new Runtime({
        ...shared,
        agents: [new Agent({ name: 'files', runner, native: null })],
      });
    };
    const plan: Plan = {
      calls: [
        { id: 'c1', tool: 'list_files', args: {} },
        { id: 'c2', tool: 'delete_file', args: { path: 'a.txt' } },
        { id: 'c3', tool: 'list_files', args: {} },
      ],
      reply: 'Done.',
    };

    // Act
    const paused = await instance().run('files', 's1', JSON.stringify(plan));
    const done = await instance().resume('s1', paused.runId, [{ id: 'c2', status: 'approved' }]);

    // Assess: c1 and c2 used the run's two calls; c3, on the second instance, is over the limit.
    expect(paused.status).toBe('paused');
    expect(done.status === 'completed' && done.text).toContain('deleted a.txt');
    expect(done.status === 'completed' && done.text).toContain(
      '{"id":"c3","result":{"error":{"kind":"run-limit-exceeded"',
    );
  });
});
