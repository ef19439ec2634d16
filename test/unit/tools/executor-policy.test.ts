import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ToolContext } from '../../../lib/core/index.js';
import {
  defineTool,
  Executor,
  InMemoryToolLedger,
  RunLimitExceeded,
  ToolError,
} from '../../../lib/tools/index.js';

function ctx(sessionId = 's1', runId = 'r1'): ToolContext {
  return { runId, sessionId, agent: 'a', signal: new AbortController().signal, context: {} };
}

function counter(name: string, extra: object = {}) {
  const calls: string[] = [];
  const spec = defineTool({
    name,
    description: name,
    input: z.object({ n: z.number() }),
    handler: ({ n }, c) => {
      calls.push(c.callId);
      return n * 2;
    },
    ...extra,
  });
  return { spec, calls };
}

describe('Executor policy', () => {
  it('waits backoffMs × factor^(attempt-1) between retries, capped at maxBackoffMs', async () => {
    // Prepare: uncapped, the waits would be 10, 100 and 1,000 ms.
    const at: number[] = [];
    const flaky = defineTool({
      name: 'flaky',
      description: 'Fails three times',
      input: z.object({}),
      retries: { retries: 3, backoffMs: 10, factor: 10, maxBackoffMs: 30 },
      handler: () => {
        at.push(performance.now());
        if (at.length < 4) throw new ToolError('busy', { retryable: true });
        return 'done';
      },
    });

    // Act
    const result = await new Executor().runSpec(flaky, {}, ctx(), { callId: 'f' });

    // Assess: each wait is at least its backoff; the cap keeps the last far under 1 s.
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(result).toBe('done');
    expect(gaps[0]).toBeGreaterThanOrEqual(9);
    expect(gaps[1]).toBeGreaterThanOrEqual(29);
    expect(gaps[2]).toBeGreaterThanOrEqual(29);
    expect(gaps[2]).toBeLessThan(1_000);
  });

  it('shares cached results across sessions only with cache.shared', async () => {
    // Prepare
    const own = counter('own', { cache: { ttlMs: 60_000 } });
    const shared = counter('shared', { cache: { ttlMs: 60_000, shared: true } });
    const executor = new Executor();

    // Act
    for (const { spec } of [own, shared]) {
      await executor.runSpec(spec, { n: 1 }, ctx('s1'), { callId: `${spec.name}-1` });
      await executor.runSpec(spec, { n: 1 }, ctx('s2'), { callId: `${spec.name}-2` });
    }

    // Assess
    expect(own.calls).toEqual(['own-1', 'own-2']);
    expect(shared.calls).toEqual(['shared-1']);
  });

  it('fails the call when its ledger write fails: an unrecorded call never looks recorded', async () => {
    // Prepare
    const { spec, calls } = counter('audited');
    const ledger = new InMemoryToolLedger();
    ledger.record = async () => {
      throw new Error('ledger table unavailable');
    };

    // Act
    const call = new Executor({ ledger }).runSpec(spec, { n: 2 }, ctx(), { callId: 'a-1' });

    // Assess
    await expect(call).rejects.toThrow('ledger table unavailable');
    expect(calls).toEqual(['a-1']);
  });

  it('limits the calls of one tool per run (callsPerToolPerRun), others still run', async () => {
    // Prepare
    const one = counter('one');
    const two = counter('two');
    const ledger = new InMemoryToolLedger();
    const executor = new Executor({ ledger, limits: { callsPerToolPerRun: 1 } });
    await executor.runSpec(one.spec, { n: 1 }, ctx(), { callId: 'o-1' });

    // Act
    const again = executor.runSpec(one.spec, { n: 1 }, ctx(), { callId: 'o-2' });
    const other = await executor.runSpec(two.spec, { n: 1 }, ctx(), { callId: 't-1' });
    const nextRun = await executor.runSpec(one.spec, { n: 1 }, ctx('s1', 'r2'), {
      callId: 'o-3',
    });

    // Assess
    await expect(again).rejects.toBeInstanceOf(RunLimitExceeded);
    await expect(again).rejects.toThrow('calls of tool "one"');
    expect([other, nextRun]).toEqual([2, 2]);
    expect(one.calls).toEqual(['o-1', 'o-3']);
    expect(ledger.entries.map((e) => [e.callId, e.outcome])).toEqual([
      ['o-1', 'ok'],
      ['o-2', 'limit'],
      ['t-1', 'ok'],
      ['o-3', 'ok'],
    ]);
  });
});
