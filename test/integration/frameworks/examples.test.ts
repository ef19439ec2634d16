import { describe, expect, it } from 'vitest';
import { main as aiSdkExample } from '../../../examples/ai-sdk/payments.js';
import { main as langgraphExample } from '../../../examples/langgraph/payments.js';

describe.each([
  ['ai-sdk', aiSdkExample],
  ['langgraph', langgraphExample],
])('the %s example', (_name, main) => {
  it('pauses on the payment, approves it and answers (offline)', async () => {
    // Prepare
    const lines: string[] = [];
    const key = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;

    // Act
    try {
      await main((line) => lines.push(line));
    } finally {
      if (key !== undefined) process.env.OPENAI_API_KEY = key;
    }

    // Assess
    expect(lines[0]).toMatch(/^paused: .*"send_payment"/);
    expect(lines).toContain('tool send_payment → "sent 10 to Bob"');
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });
});
