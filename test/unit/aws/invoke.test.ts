import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { createInvokeHandler } from '../../../lib/aws/handlers/invoke.js';
import type { Deployment } from '../../../lib/aws/wiring/deployment.js';
import { SessionConflict } from '../../../lib/core/errors.js';

// What the handler answers before and around the front door; the runs themselves are
// test/integration/aws/invoke.test.ts.
describe('the invoke handler (lib/aws/handlers/invoke.ts)', () => {
  it('answers a malformed payload with a coded error and builds no deployment', async () => {
    // Prepare
    let built = 0;
    const handler = createInvokeHandler(async () => {
      built++;
      throw new Error('not reached');
    });

    // Act
    const answers = await Promise.all(
      [null, 'run', { action: 'fly' }, { action: 'run', agent: 'a', input: 'x', extra: 1 }].map(
        (payload) => handler(payload),
      ),
    );

    // Assess
    for (const answer of answers) {
      expect(answer).toMatchObject({ type: 'error', code: expect.stringMatching(/^invalid-/) });
    }
    expect(built).toBe(0);
  });

  it('answers our error with its code and the payload’s requestId', async () => {
    // Prepare
    const handler = createInvokeHandler(async () => {
      throw new SessionConflict('s-1', 1);
    });

    // Act
    const answer = await handler({ action: 'run', requestId: 'req-7', agent: 'a', input: 'hi' });

    // Assess
    expect(answer).toMatchObject({ type: 'error', requestId: 'req-7', code: 'session-conflict' });
  });

  it('answers a foreign error internal-error, logs it, and shows none of its text', async () => {
    // Prepare
    const logged: unknown[] = [];
    const logger = new Logger({ serviceName: 'invoke-test' });
    logger.error = (...args: unknown[]) => void logged.push(args);
    const handler = createInvokeHandler(async (): Promise<Deployment> => {
      throw new Error('secret table name');
    }, logger);

    // Act
    const answer = await handler({ action: 'run', agent: 'a', input: 'hi' });

    // Assess
    expect(answer).toMatchObject({ type: 'error', code: 'internal-error' });
    expect(JSON.stringify(answer)).not.toContain('secret');
    expect(logged).toHaveLength(1);
  });
});
