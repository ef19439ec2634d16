import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Agent, Runtime } from '../../../lib/core/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  defineTool,
  Executor,
  InMemoryToolLedger,
  pauseForApproval,
} from '../../../lib/tools/index.js';
import { type Plan, PlanRunner } from './plan-runner.js';

function setup() {
  const deleted: string[] = [];
  const remove = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    confirm: true,
    handler: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const list = defineTool({
    name: 'list_files',
    description: 'List files',
    input: z.object({}),
    handler: () => ['a.txt', 'b.txt'],
  });
  const ledger = new InMemoryToolLedger();
  const executor = new Executor({ ledger, approval: pauseForApproval });
  const runner = new PlanRunner([remove, list], executor);
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [new Agent({ name: 'files', runner, native: null })],
  });
  return { runtime, ledger, deleted };
}

const plan: Plan = {
  calls: [
    { id: 'c1', tool: 'list_files', args: {} },
    { id: 'c2', tool: 'delete_file', args: { path: 'a.txt' } },
  ],
  reply: 'Done.',
};

describe('executor approval for frameworks without a native gate', () => {
  it('pauses a confirm call through the paused-run store and runs it once on approval', async () => {
    // Prepare
    const { runtime, ledger, deleted } = setup();

    // Act
    const paused = await runtime.run('files', 's1', JSON.stringify(plan));

    // Assess
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [
        { id: 'c2', kind: 'tool-approval', toolName: 'delete_file', arguments: { path: 'a.txt' } },
      ],
    });
    expect(deleted).toEqual([]);
    expect((await ledger.list('s1')).map((e) => [e.callId, e.outcome])).toEqual([
      ['c1', 'ok'],
      ['c2', 'paused'],
    ]);

    // Act: approve in the next turn
    const done = await runtime.resume('s1', paused.runId, [{ id: 'c2', status: 'approved' }]);

    // Assess: list_files did not run again; delete_file ran once.
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.status === 'completed' && done.text).toContain('deleted a.txt');
    expect(deleted).toEqual(['a.txt']);
    const entries = await ledger.list('s1');
    expect(entries.filter((e) => e.callId === 'c1')).toHaveLength(1);
    expect(entries.at(-1)).toMatchObject({ callId: 'c2', outcome: 'ok', approval: 'approved' });
  });

  it('denied: the tool does not run and the result carries the denial for the model', async () => {
    // Prepare
    const { runtime, ledger, deleted } = setup();
    const paused = await runtime.run('files', 's2', JSON.stringify(plan));

    // Act
    const done = await runtime.resume('s2', paused.runId, [
      { id: 'c2', status: 'denied', message: 'keep a.txt' },
    ]);

    // Assess
    expect(deleted).toEqual([]);
    expect(done.status === 'completed' && done.text).toContain('approval-denied');
    expect(done.status === 'completed' && done.text).toContain('keep a.txt');
    expect((await ledger.list('s2')).at(-1)).toMatchObject({
      outcome: 'denied',
      approval: 'denied',
    });
  });

  it('approved with edits: the tool runs with the edited, validated arguments', async () => {
    // Prepare
    const { runtime, ledger, deleted } = setup();
    const paused = await runtime.run('files', 's3', JSON.stringify(plan));

    // Act
    await runtime.resume('s3', paused.runId, [
      { id: 'c2', status: 'approved', arguments: { path: 'b.txt' } },
    ]);

    // Assess
    expect(deleted).toEqual(['b.txt']);
    expect((await ledger.list('s3')).at(-1)).toMatchObject({ approval: 'approved-edited' });
  });

  it('streams the pause as run-paused and the resume as an ordinary turn', async () => {
    // Prepare
    const { runtime } = setup();
    const first: string[] = [];
    let runId = '';

    // Act
    for await (const event of runtime.stream('files', 's4', JSON.stringify(plan))) {
      first.push(event.type);
      runId = event.runId;
    }
    const second: string[] = [];
    for await (const event of runtime.resumeStream('s4', runId, [
      { id: 'c2', status: 'approved' },
    ])) {
      second.push(event.type);
    }

    // Assess
    expect(first.at(-1)).toBe('run-paused');
    expect(second).toEqual([
      'run-started',
      'tool-call-start',
      'tool-call-args',
      'tool-call-end',
      'tool-call-result',
      'run-finished',
    ]);
  });
});
