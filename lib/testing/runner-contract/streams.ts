import { expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.js';
import type { RecordedRequest } from '../scripted-model-server.js';
import { type ContractWorld, collect, expectWellFormed } from './world.js';

const TEXTS = {
  alpha: 'Alpha one, alpha two, alpha three.',
  beta: 'Beta one, beta two, beta three, beta four.',
} as const;

/** The text of a stream's messages, and the ids it used. */
function textOf(events: readonly StreamEvent[]): string {
  return events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
}

function idsOf(events: readonly StreamEvent[]): Set<string> {
  const ids = events.map((e) =>
    'messageId' in e && typeof e.messageId === 'string' ? e.messageId : '',
  );
  return new Set(ids.filter(Boolean));
}

/** Stream-shape cases of the runner contract that the first checks do not cover. */
export function registerStreamChecks(world: ContractWorld): void {
  it('keeps mid-stream state per stream: two concurrent streams of one runner do not mix', async () => {
    // Prepare: each model answer waits until both requests arrived, so both streams are open.
    let arrived = 0;
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answer = async (request: RecordedRequest) => {
      arrived += 1;
      if (arrived === 2) release();
      await both;
      const word = JSON.stringify(request.body).includes('Say alpha') ? 'alpha' : 'beta';
      return { text: TEXTS[word] };
    };
    world.server.push(answer, answer);

    // Act
    const [alpha, beta] = await Promise.all([
      collect(world.runtime.stream('agent', 's-alpha', 'Say alpha')),
      collect(world.runtime.stream('agent', 's-beta', 'Say beta')),
    ]);

    // Assess
    for (const [events, word] of [
      [alpha, 'alpha'],
      [beta, 'beta'],
    ] as const) {
      expectWellFormed(events);
      expect(textOf(events)).toBe(TEXTS[word]);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: TEXTS[word] } });
      expect(new Set(events.map((e) => e.runId)).size).toBe(1);
      // Message ids are unique per run only (a provider may reuse "0"): each delta's is opened here.
      const opened = idsOf(events.filter((e) => e.type === 'message-start'));
      expect(idsOf(events.filter((e) => e.type === 'text-delta'))).toEqual(opened);
    }
    expect(alpha[0]?.runId).not.toBe(beta[0]?.runId);
  });

  it('opens a message only once text arrives: a tool-call-only step opens none', async () => {
    // Prepare
    world.server.push(
      { toolCalls: [{ id: 'call_quiet_1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Cold in Oslo.' },
    );

    // Act
    const events = await collect(world.runtime.stream('agent', 's-quiet', 'Weather in Oslo?'));

    // Assess: one message, after the tool's result, and its first event after start is text.
    expectWellFormed(events);
    const starts = events.flatMap((e, i) => (e.type === 'message-start' ? [i] : []));
    expect(starts).toHaveLength(1);
    const result = events.findIndex((e) => e.type === 'tool-call-result');
    expect(starts[0]).toBeGreaterThan(result);
    const next = events.slice((starts[0] ?? 0) + 1).find((e) => e.type !== 'reasoning-delta');
    expect(next).toMatchObject({ type: 'text-delta' });
    expect(textOf(events)).toBe('Cold in Oslo.');
  });
}
