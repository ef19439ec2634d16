import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEventSchema } from '../../../lib/core/events.js';
import { lazyStream } from '../../../lib/core/lazy-stream.js';
import { checkRunnerEvent } from '../../../lib/core/runner-events.js';
import { InMemorySessionStore, Runtime } from '../../../lib/index.js';
import { collect, FakeRunner, fakeAgent, types } from './fake-runner.js';

async function* counting(log: string[]): AsyncGenerator<number, void, undefined> {
  log.push('started');
  try {
    yield 1;
    yield 2;
  } finally {
    log.push('finally');
  }
}

describe('lazyStream (Runtime.stream without a delegating generator)', () => {
  it('starts on the first next(), then is the started generator', async () => {
    // Prepare
    const log: string[] = [];
    const stream = lazyStream(() => counting(log));

    // Act
    const before = [...log];
    const values: number[] = [];
    for await (const value of stream) values.push(value);

    // Assess
    expect(before).toEqual([]);
    expect(values).toEqual([1, 2]);
    expect(log).toEqual(['started', 'finally']);
  });

  it('ends without starting on return() or throw() before the first next()', async () => {
    // Prepare
    const log: string[] = [];
    const returned = lazyStream(() => counting(log));
    const thrown = lazyStream(() => counting(log));

    // Act
    const result = await returned.return(undefined);
    const rejection = thrown.throw(new Error('stop'));
    await expect(rejection).rejects.toThrow('stop');
    const after = await Promise.all([returned.next(), thrown.next()]);

    // Assess
    expect(result).toEqual({ done: true, value: undefined });
    expect(after).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    expect(log).toEqual([]);
  });

  it('passes return() to a started generator, which runs its finally', async () => {
    // Prepare
    const log: string[] = [];
    const stream = lazyStream(() => counting(log));

    // Act
    const first = await stream.next();
    await stream.return(undefined);

    // Assess
    expect(first).toEqual({ done: false, value: 1 });
    expect(log).toEqual(['started', 'finally']);
  });

  it('gives Runtime.stream a setup failure as its only event, on iteration', async () => {
    // Prepare
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(new FakeRunner())],
    });

    // Act
    const stream = runtime.stream('missing', 's1', 'hi', { runId: 'r1' });
    const events = await collect(stream);

    // Assess
    expect(types(events)).toEqual(['run-error']);
    expect(events[0]).toMatchObject({ runId: 'r1', code: 'agent-not-found' });
  });
});

describe('a step-end with usage, checked by hand', () => {
  const count = fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 }), fc.double(), fc.constant(-0));
  const usage = fc.oneof(
    fc.record({ inputTokens: count, outputTokens: count }),
    fc.record({ inputTokens: count, outputTokens: count, extra: fc.nat() }),
    fc.record({ inputTokens: count }),
    fc.constantFrom(null, [], 'x', 2 ** 53),
  );

  it('accepts exactly what StreamEventSchema accepts', () => {
    fc.assert(
      fc.property(usage, fc.boolean(), (given, extraKey) => {
        // Prepare
        const event = {
          type: 'step-end',
          runId: 'r1',
          stepId: 's',
          usage: given,
          ...(extraKey ? { other: 1 } : {}),
        };

        // Act
        let accepted = true;
        try {
          checkRunnerEvent(event, 'fake', 'r1');
        } catch {
          accepted = false;
        }

        // Assess
        expect(accepted).toBe(StreamEventSchema.safeParse(event).success);
      }),
      { numRuns: 300 },
    );
  });
});
