import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, type ExpectStatic, inject, it } from 'vitest';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptedTurn,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';
import { newTable } from '../stores/dynamo.js';
import { type ChildExit, effects, useWorkerChildren } from './harness.js';

/**
 * The model: asked by the user, it calls append_line (a fresh random call id every time, as real
 * models do); given the tool's result, it answers with that result.
 */
function respond(request: RecordedRequest): ScriptedTurn {
  const messages = request.body.messages;
  const last = messages.at(-1);
  if (last.role === 'tool') {
    const results = messages.filter((m: { role: string }) => m.role === 'tool');
    return { text: `done: ${results.map((m: { content: string }) => m.content).join(' ')}` };
  }
  if (String(last.content).includes('twice')) {
    const texts = ['one', 'two'];
    return { toolCalls: texts.map((text) => ({ name: 'append_line', arguments: { text } })) };
  }
  return { toolCalls: [{ name: 'append_line', arguments: { text: 'hello' } }] };
}

const endpoint = inject('dynaliteEndpoint');
const children = useWorkerChildren();

type Env = Record<string, string>;
interface World {
  server: ScriptedModelServer;
  file: string;
  run: (env?: Env) => Promise<ChildExit>;
  /** Runs the children alive at the same moment (they take their slots together). */
  together: (envs: Env[]) => Promise<ChildExit[]>;
}

/**
 * Runs `body` in this case's own world (model server, table, session, effect file), so cases
 * running at once never read each other's model requests or journal; then closes it.
 */
async function inWorld(body: (w: World) => Promise<void>): Promise<void> {
  const server = await startScriptedModelServer({ fallback: respond });
  try {
    const { tableName } = await newTable(endpoint);
    const file = join(mkdtempSync(join(tmpdir(), 'durable-')), 'effects.txt');
    const base = {
      DYNAMO_ENDPOINT: endpoint,
      TABLE_NAME: tableName,
      MODEL_URL: server.url,
      EFFECT_FILE: file,
      SESSION_ID: `s-${randomBytes(4).toString('hex')}`,
      RUN_ID: `job-${randomBytes(4).toString('hex')}`,
    };
    await body({
      server,
      file,
      run: (env = {}) => children.run({ ...base, ...env }),
      together: (envs) => children.together(envs.map((env) => ({ ...base, ...env }))),
    });
  } finally {
    await server.close();
  }
}

const approve = JSON.stringify([{ id: '', status: 'approved' }]);
const decisionsFor = (callId: string) => approve.replace('""', JSON.stringify(callId));

/**
 * A hang limit, not a wait: cases run at once and share two child slots, so on a busy machine a
 * case may wait for other cases' children as well as run its own (up to four).
 */
const CASES = { timeout: 180_000 };

describe('durable turns: SIGKILL of a worker, then redelivery', CASES, () => {
  it.concurrent('a worker killed right after the write its outcome rode on: the redelivered job completes, one effect', ({
    expect,
  }) =>
    inWorld(async ({ file, run, server }) => {
      // Act: the outcome rides on the runner's last write, after the step that read it.
      const killed = await run({ KILL: 'after-finish' });
      const redelivered = await run({ STREAM: '1' });

      // Assess
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(redelivered.result?.reply.text).toBe('done: {"appended":"hello"}');
      expect(effects(file)).toHaveLength(1);
      // The recorded step was served from the journal: no model call for it on the replay.
      expect(server.requests).toHaveLength(3);
      // And its stream says so: the call's result came from the journal, it did not run again.
      expect(redelivered.result?.reply.results).toEqual([
        expect.objectContaining({ type: 'tool-call-result', replayed: true }),
      ]);
    }));

  it.concurrent('a worker killed after a tool ran, before the next start its outcome rides on: each effect once', ({
    expect,
  }) =>
    inWorld(async ({ file, run, server }) => {
      // Prepare: one model step asks for two calls; the second's start carries the first's outcome.
      const input = { INPUT: 'append twice' };

      // Act
      const killed = await run({ ...input, KILL: 'before-fold' });
      const redelivered = await run(input);

      // Assess: the first call is not run again (its outcome unknown), the second runs once.
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(redelivered.result?.reply.text).toContain('"kind":"tool-outcome-unknown"');
      expect(redelivered.result?.reply.text).toContain('{"appended":"two"}');
      expect(effects(file).map((line) => line.split(' ')[0])).toEqual(['one', 'two']);
      // The recorded step rode on the first start: the replay asked only for the final answer.
      expect(server.requests).toHaveLength(2);
    }));

  it.concurrent('a worker killed right after the folded start: the replay has the first outcome, each effect once', ({
    expect,
  }) =>
    inWorld(async ({ file, run, server }) => {
      // Prepare
      const input = { INPUT: 'append twice' };

      // Act: killed once the second call's start (carrying the first's outcome) is written.
      const killed = await run({ ...input, KILL: 'after-finish' });
      const redelivered = await run(input);

      // Assess: the first outcome replayed; the second call started and never ran: not run again.
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result?.reply.text).toContain('{"appended":"one"}');
      expect(redelivered.result?.reply.text).toContain('"kind":"tool-outcome-unknown"');
      expect(effects(file).map((line) => line.split(' ')[0])).toEqual(['one']);
      expect(server.requests).toHaveLength(2);
    }));

  it.concurrent('a worker killed after the whole turn, before the session save: one effect', ({
    expect,
  }) =>
    inWorld(async ({ file, run }) => {
      // Act
      const killed = await run({ KILL: 'before-save' });
      const redelivered = await run();

      // Assess
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result?.reply.text).toBe('done: {"appended":"hello"}');
      expect(effects(file)).toHaveLength(1);
    }));

  it.concurrent('control: without a journal the same crash runs the tool twice (what the journal prevents)', ({
    expect,
  }) =>
    inWorld(async ({ file, run }) => {
      // Act
      await run({ KILL: 'before-save', NO_JOURNAL: '1' });
      const redelivered = await run({ NO_JOURNAL: '1' });

      // Assess
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(effects(file)).toHaveLength(2);
    }));

  it.concurrent('a worker killed during the tool: the model gets tool-outcome-unknown, never two effects', ({
    expect,
  }) =>
    inWorld(async ({ file, run }) => {
      // Act
      const killed = await run({ KILL: 'during-tool' });
      const redelivered = await run();

      // Assess
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(redelivered.result?.reply.text).toContain('"kind":"tool-outcome-unknown"');
      expect(effects(file).length).toBeLessThanOrEqual(1);
      expect(effects(file)).toHaveLength(1);
    }));
});

describe('durable turns: an unknown outcome paused for a person', CASES, () => {
  it.concurrent('a tool that asks to pause: the redelivered job pauses, a denial tells the model, one effect', ({
    expect,
  }) =>
    inWorld(async ({ file, run }) => {
      // Prepare
      const env = { ON_UNKNOWN: 'pause' };
      await run({ ...env, KILL: 'during-tool' });

      // Act
      const redelivered = await run(env);
      const interruption = redelivered.result?.reply.interruptions?.[0];
      const denied = JSON.stringify([{ id: interruption?.id, status: 'denied' }]);
      const resumed = await run({ ...env, MODE: 'resume', DECISIONS: denied });

      // Assess
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'paused' } });
      expect(interruption).toMatchObject({
        kind: 'tool-approval',
        toolName: 'append_line',
        message: expect.stringContaining('outcome is unknown'),
      });
      expect(resumed.result?.reply.text).toContain('"kind":"tool-outcome-unknown"');
      expect(effects(file)).toHaveLength(1);
    }));
});

describe('durable turns: resumes', CASES, () => {
  /** The run paused for approval of its call; the decisions that approve it. */
  async function paused(expect: ExpectStatic, { run }: World): Promise<string> {
    const first = await run({ CONFIRM: '1' });
    expect(first.result).toMatchObject({ ok: true, reply: { status: 'paused' } });
    return decisionsFor(first.result?.reply.interruptions[0].id as string);
  }

  /** A resume of the paused run killed at `kill`, then redelivered once its 1.5 s claim lapsed. */
  async function resumeKilledAt(expect: ExpectStatic, w: World, kill: string) {
    const decisions = await paused(expect, w);
    const env = { CONFIRM: '1', MODE: 'resume', DECISIONS: decisions, CLAIM_MS: '1500' };
    const killed = await w.run({ ...env, KILL: kill });
    await sleep(1_600);
    return { killed, redelivered: await w.run(env) };
  }

  it.concurrent('a resume that fails after the approved tool ran, sent again: one effect', ({
    expect,
  }) =>
    inWorld(async (w) => {
      // Prepare
      const { file, run, server } = w;
      const decisions = await paused(expect, w);
      server.push({ error: { status: 500, message: 'model overloaded' } });

      // Act
      const failed = await run({ CONFIRM: '1', MODE: 'resume', DECISIONS: decisions });
      const again = await run({ CONFIRM: '1', MODE: 'resume', DECISIONS: decisions });

      // Assess
      expect(failed.result).toMatchObject({ ok: false, code: 'runner-error' });
      expect(effects(file)).toHaveLength(1);
      expect(again.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(again.result?.reply.text).toBe('done: {"appended":"hello"}');
    }));

  it.concurrent('two resumes at the same moment: one runs the tool, one effect', ({ expect }) =>
    inWorld(async (w) => {
      // Prepare
      const decisions = await paused(expect, w);

      // Act: both children alive at once (they take both child slots together).
      const resume = { CONFIRM: '1', MODE: 'resume', DECISIONS: decisions };
      const both = await w.together([resume, resume]);

      // Assess
      const results = both.map((b) => b.result);
      expect(results.filter((r) => r?.ok)).toHaveLength(1);
      // The lease serialises them: the loser finds the run claimed, or already finished and gone.
      expect(['run-already-resumed', 'paused-run-not-found']).toContain(
        results.find((r) => !r?.ok)?.code,
      );
      expect(effects(w.file)).toHaveLength(1);
    }));

  it.concurrent('a resume killed after the tool ran, redelivered once its claim lapsed: one effect', ({
    expect,
  }) =>
    inWorld(async (w) => {
      // Prepare, act
      const { killed, redelivered } = await resumeKilledAt(expect, w, 'after-finish');

      // Assess
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(effects(w.file)).toHaveLength(1);
    }));

  it.concurrent('a resume killed during the approved tool, redelivered: tool-outcome-unknown, one effect', ({
    expect,
  }) =>
    inWorld(async (w) => {
      // Prepare, act: the same decisions again; the call's approval does not make it run twice.
      const { killed, redelivered } = await resumeKilledAt(expect, w, 'during-tool');

      // Assess
      expect(killed.signal).toBe('SIGKILL');
      expect(redelivered.result).toMatchObject({ ok: true, reply: { status: 'completed' } });
      expect(redelivered.result?.reply.text).toContain('"kind":"tool-outcome-unknown"');
      expect(effects(w.file)).toHaveLength(1);
    }));
});
