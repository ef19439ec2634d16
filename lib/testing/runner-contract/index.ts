import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunOptions } from '../../core/run-options.js';
import { Runtime } from '../../core/runtime.js';
import { InMemoryPausedRunStore } from '../../stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../stores/memory/session-store.js';
import { Executor } from '../../tools/executor.js';
import { startScriptedModelServer } from '../scripted-model-server.js';
import { registerDurabilityChecks } from './durability.js';
import type { RunnerContractHarness, RunOptionProbe } from './harness.js';
import { registerPathChecks } from './paths.js';
import { registerPauseChecks } from './pause.js';
import { registerReservedChecks } from './reserved.js';
import { registerSpecDurabilityChecks } from './spec-durability.js';
import { registerStreamChecks } from './streams.js';
import { contractTools } from './tools.js';
import { type ContractWorld, collect, expectWellFormed } from './world.js';

export type {
  ContractNativeTool,
  NativeToolsEnv,
  RunnerContractEnv,
  RunnerContractHarness,
  RunOptionProbe,
} from './harness.js';
export { CrashBeforeSave, LosingJournalStore } from './journal.js';

/**
 * The probe of a run option that limits a turn's model steps (`maxTurns`, `recursionLimit`) so
 * that a tool call and its answer do not fit: the run ends `max-turns-exceeded` after one request.
 */
export function stepLimitProbe(options: RunOptions): RunOptionProbe {
  return {
    options,
    script: [
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'never' },
    ],
    assess: ({ error, requests }) => {
      expect(error).toMatchObject({ code: 'max-turns-exceeded' });
      expect(requests).toHaveLength(1);
    },
  };
}
export { type ContractRecord, contractTools } from './tools.js';
export { type ContractWorld, collect, expectWellFormed } from './world.js';

const weatherCall = (id: string, city: string) => ({
  toolCalls: [{ id, name: 'get_weather', arguments: { city } }],
});

/**
 * Registers the runner contract for one framework runner (vitest describe/it): history, stream
 * shape, tool-call events with the framework's ids, model errors, framework context, run
 * options, and pause/resume where the runner supports it. Every test runs against the scripted
 * model server with the real Executor.
 */
export function runnerContract(harness: RunnerContractHarness): void {
  const world = {} as ContractWorld;

  describe(`${harness.name} runner contract`, () => {
    beforeAll(async () => {
      world.server = await startScriptedModelServer();
    });
    afterAll(async () => {
      await world.server.close();
    });
    beforeEach(async () => {
      world.server.reset();
      world.record = { weather: [], payments: [] };
      world.sessions = new InMemorySessionStore();
      world.pausedRuns = new InMemoryPausedRunStore();
      const agent = await harness.agent({
        modelUrl: world.server.url,
        tools: contractTools(world.record),
        executor: new Executor(),
      });
      world.runtime = new Runtime({
        sessions: world.sessions,
        pausedRuns: world.pausedRuns,
        agents: [agent],
      });
    });

    it('declares its pause support truthfully', () => {
      // Assess
      expect(world.runtime.agent('agent').runner.supportsPause).toBe(harness.supportsPause);
    });

    it('sends the first turn’s history with the second turn', async () => {
      // Prepare
      const { server, runtime } = world;
      server.push({ text: 'Nice to meet you, Ada.' }, { text: 'Your name is Ada.' });

      // Act
      const first = await runtime.run('agent', 's-history', 'My name is Ada.');
      const second = await runtime.run('agent', 's-history', 'What is my name?');

      // Assess
      expect(first).toMatchObject({ status: 'completed', text: 'Nice to meet you, Ada.' });
      expect(second).toMatchObject({ status: 'completed', text: 'Your name is Ada.' });
      expect(server.requests).toHaveLength(2);
      const sent = JSON.stringify(server.requests[1]?.body);
      expect(sent).toContain('My name is Ada.');
      expect(sent).toContain('Nice to meet you, Ada.');
      expect(sent).toContain('What is my name?');
      expect(JSON.stringify(server.requests[0]?.body)).not.toContain('What is my name?');
    });

    it('streams valid events with closed message boundaries in order', async () => {
      // Prepare
      world.server.push({ text: 'Hello there, my friend.' });

      // Act
      const events = await collect(world.runtime.stream('agent', 's-stream', 'Hi'));

      // Assess
      expectWellFormed(events);
      expect(events.at(-1)).toMatchObject({
        type: 'run-finished',
        reply: { text: 'Hello there, my friend.' },
      });
      const message = events.filter(
        (e) => e.type.startsWith('message-') || e.type === 'text-delta',
      );
      expect(message[0]?.type).toBe('message-start');
      expect(message.at(-1)?.type).toBe('message-end');
      const ids = new Set(message.map((e) => ('messageId' in e ? e.messageId : '')));
      expect(ids.size).toBe(1);
      const deltas = message.filter((e) => e.type === 'text-delta');
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('')).toBe(
        'Hello there, my friend.',
      );
    });

    it('streams a tool call as start, args, end, result with the framework’s call id', async () => {
      // Prepare
      world.server.push(weatherCall('call_contract_1', 'Paris'), { text: 'Sunny in Paris.' });

      // Act
      const events = await collect(world.runtime.stream('agent', 's-tool', 'Weather in Paris?'));

      // Assess
      expectWellFormed(events);
      const tool = events.filter((e) => e.type.startsWith('tool-call'));
      const kinds = tool.map((e) => e.type);
      expect(kinds[0]).toBe('tool-call-start');
      expect(kinds.slice(-2)).toEqual(['tool-call-end', 'tool-call-result']);
      expect(kinds.slice(1, -2).every((k) => k === 'tool-call-args')).toBe(true);
      for (const event of tool) expect(event).toMatchObject({ toolCallId: 'call_contract_1' });
      expect(tool[0]).toMatchObject({ toolName: 'get_weather' });
      const args = tool.map((e) => (e.type === 'tool-call-args' ? e.delta : '')).join('');
      expect(JSON.parse(args)).toEqual({ city: 'Paris' });
      expect(tool.at(-1)).toMatchObject({ toolName: 'get_weather' });
      expect(JSON.stringify(tool.at(-1))).toContain('sunny');
      expect(world.record.weather).toEqual([
        { city: 'Paris', callId: 'call_contract_1', callsBefore: 0 },
      ]);
      expect(events.at(-1)).toMatchObject({
        type: 'run-finished',
        reply: { text: 'Sunny in Paris.' },
      });
    });

    it('turns a model error into run-error and stores nothing', async () => {
      // Prepare
      const { server, runtime, sessions } = world;
      server.push({ text: 'First answer.' });
      await runtime.run('agent', 's-fail', 'Hello');
      const before = await sessions.load('s-fail');
      server.push({ error: { status: 500, message: 'upstream exploded' } });

      // Act
      const events = await collect(runtime.stream('agent', 's-fail', 'Again'));

      // Assess
      expectWellFormed(events);
      expect(events.at(-1)).toMatchObject({ type: 'run-error', code: 'model-error' });
      expect(await sessions.load('s-fail')).toEqual(before);
    });

    it('carries framework context written by a tool into the next turn', async () => {
      // Prepare
      const { server, runtime, sessions, record } = world;
      server.push(weatherCall('call_ctx_1', 'Oslo'), { text: 'Cold.' });
      server.push(weatherCall('call_ctx_2', 'Rome'), { text: 'Warm.' });

      // Act
      await runtime.run('agent', 's-context', 'Oslo?');
      await runtime.run('agent', 's-context', 'Rome?');

      // Assess
      expect(record.weather.map((w) => w.callsBefore)).toEqual([0, 1]);
      expect((await sessions.load('s-context'))?.data.context).toMatchObject({ weatherCalls: 2 });
    });

    it('passes run options to the native call and refuses reserved ones', async () => {
      // Prepare
      const { server, runtime } = world;
      const probe = harness.runOption;
      server.push(...probe.script);

      // Act
      const outcome = await runtime
        .run('agent', 's-options', 'Weather in Oslo?', { runOptions: probe.options })
        .then(
          (reply) => ({ reply }),
          (error: unknown) => ({ error }),
        );
      const reserved = runtime.run('agent', 's-reserved', 'Hi', {
        runOptions: { [harness.reservedOption]: true },
      });

      // Assess
      probe.assess({ ...outcome, requests: server.requests });
      await expect(reserved).rejects.toMatchObject({ code: 'reserved-run-option' });
    });

    registerStreamChecks(world);
    registerReservedChecks(world);
    registerPathChecks(world, harness);
    if (harness.supportsPause) registerPauseChecks(world);
  });
  registerDurabilityChecks(harness);
  registerSpecDurabilityChecks(harness);
}
