import { describe, expect, it } from 'vitest';
import { npmStart, openSocket, untilRunEnds } from './helpers/cli.js';

// `npm start -- --agents examples/<framework>/agents.ts` on a machine with no model configured:
// the local stack's scripted model answers each framework in its provider's own protocol
// (Gemini for ADK, Bedrock Converse for Strands, OpenAI for Mastra), over the real handlers.
describe.each([
  ['adk', 'weather', 'Gemini'],
  ['strands', 'strands', 'Bedrock Converse'],
  ['mastra', 'weather', 'OpenAI'],
])('npm start -- --agents examples/%s/agents.ts', (framework, agent, protocol) => {
  it(`streams the ${framework} agent's reply offline (${protocol} stand-in)`, async () => {
    // Prepare
    const stack = await npmStart(['--agents', `examples/${framework}/agents.ts`]);
    try {
      const ws = await openSocket(stack.wsUrl, stack.token);
      const done = untilRunEnds(ws);

      // Act
      ws.send(
        JSON.stringify({
          action: 'run',
          requestId: `${framework}-1`,
          agent,
          sessionId: `${framework}-session`,
          input: 'Hello?',
        }),
      );
      const events = (await done).flatMap((m) => m.events ?? []);
      ws.close();

      // Assess: the offline model's fallback answer, streamed through the framework's runner.
      expect(stack.printed()).toContain(`examples/${framework}/agents.ts: ${agent}`);
      const text = events
        .filter((e) => e.type === 'text-delta')
        .map((e) => e.delta)
        .join('');
      expect(text).toBe('Hello from the offline scripted model.');
      expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
    } finally {
      await stack.stop();
    }
  }, 120_000);
});
