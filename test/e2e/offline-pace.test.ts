import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStart, type StartedStack } from './helpers/cli.js';

// `npm start` offline, at its default pace (the suite sets AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND
// to 0; '' here is unset): the answer comes as many deltas spread over seconds, not in two
// frames at once. Only a lower bound on time is checked: a busy machine can only make it slower.
const CHUNK_MS = 50; // 40 tokens/s, 2 tokens a chunk (lib/local/offline-model.ts)
let stack: StartedStack;

beforeAll(async () => {
  stack = await npmStart([], { AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '' });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the offline model streams at a person’s pace by default', () => {
  it('spreads the answer’s deltas over time, as a person sees streaming', async () => {
    // Prepare
    const streamUrl = /Stream URL\s+(\S+)/.exec(stack.printed())?.[1] as string;

    // Act: every text delta with the time it reached the client.
    const res = await fetch(`${streamUrl}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ agent: 'demo', input: 'hello' }),
    });
    const arrivals: number[] = [];
    let buffered = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += Buffer.from(chunk).toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.startsWith('data: '))) {
        const message = JSON.parse(line.slice('data: '.length));
        for (const event of message.events ?? [message]) {
          if (event.type === 'text-delta') arrivals.push(performance.now());
        }
      }
    }

    // Assess: n deltas of the paced model take at least (n - 1) pauses, less one batch window.
    expect(res.status).toBe(200);
    expect(arrivals.length).toBeGreaterThan(10);
    const spanMs = (arrivals.at(-1) as number) - (arrivals[0] as number);
    expect(spanMs).toBeGreaterThan((arrivals.length - 1) * CHUNK_MS * 0.9 - 150);
  }, 60_000);
});
