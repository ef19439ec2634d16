import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PacingProxy, startPacingProxy } from '../../../bench/pacing-proxy.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';
import { WsUser } from './clients.js';

const TOKENS = 200;
const PACE = 100;
const token = (i: number) => ` w${String(i).padStart(3, '0')}`;

/**
 * The local stack streams: a model that takes ~2 s for a 200-token answer, and the client sees
 * the first token long before the last, in many frames, as the runner emits them (not one burst
 * after a queue poll). Structural checks with wide margins, no timed thresholds.
 */
export function streamingSuite(mode: 'sqs-fanout' | 'direct'): void {
  let model: ScriptedModelServer;
  let proxy: PacingProxy;
  let stack: LocalStack;
  let user: WsUser;

  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    process.env.DELIVERY_MODE = mode;
    // No key: the model server needs none, and OPENAI_BASE_URL alone must do (examples/demo/agents.ts).
    for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'OPENAI_API_KEY'])
      delete process.env[key];
    model = await startScriptedModelServer({
      chunkSize: 5,
      fallback: { text: Array.from({ length: TOKENS }, (_, i) => token(i)).join('') },
    });
    proxy = await startPacingProxy(model.url);
    proxy.pace = PACE;
    process.env.OPENAI_BASE_URL = proxy.url;
    stack = await startLocalStack();
    user = await WsUser.connect(stack, 'streamer');
  }, 60_000);
  afterAll(async () => {
    user?.close();
    await stack?.stop();
    await proxy?.close();
    await model?.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
  });

  describe(`local streaming (${mode})`, () => {
    it('delivers the first token while the model is still streaming, the rest as they come', async () => {
      // Prepare: every text delta's arrival, by frame
      const arrivals: { delta: string; at: number; frame: number }[] = [];
      let frames = 0;
      user.socket.on('message', (data) => {
        const at = performance.now();
        const message = JSON.parse(String(data));
        if (message.type !== 'events') return;
        frames += 1;
        for (const event of message.events) {
          if (event.type === 'text-delta') arrivals.push({ delta: event.delta, at, frame: frames });
        }
      });

      // Act
      const sentAt = performance.now();
      user.send({
        action: 'run',
        requestId: `stream-${mode}`,
        agent: 'demo',
        sessionId: `stream-${mode}`,
        input: 'Tell me a long story.',
      });
      const accepted = await user.answer(`stream-${mode}`);
      await user.terminal(accepted.runId);

      // Assess: every token, in order
      expect(arrivals.map((a) => a.delta).join('')).toBe(
        Array.from({ length: TOKENS }, (_, i) => token(i)).join(''),
      );
      const first = arrivals[0]!;
      const last = arrivals.at(-1)!;
      // The first token reached the client before the model had written half of the answer.
      const half = proxy.written.get(token(TOKENS / 2));
      expect(half).toBeDefined();
      expect(first.at).toBeLessThan(half!);
      // The first token came alone in its frame, and the answer in many frames, not a burst.
      expect(arrivals.filter((a) => a.frame === first.frame)).toHaveLength(1);
      expect(new Set(arrivals.map((a) => a.frame)).size).toBeGreaterThanOrEqual(5);
      // From the model's first token, the first reached the client in under a quarter of the
      // time the last one took (the run's cold start is not counted).
      const began = proxy.written.get(token(0))!;
      expect(first.at - began).toBeLessThan((last.at - began) / 4);
      expect(sentAt).toBeLessThan(began);
      // OPENAI_BASE_URL without OPENAI_API_KEY: the client sent a placeholder key.
      expect(model.requests.at(-1)?.headers.authorization).toBe('Bearer no-key');
    });
  });
}
