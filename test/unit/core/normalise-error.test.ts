import { describe, expect, it } from 'vitest';
import { AgentKernelError, RunnerError } from '../../../lib/core/errors.js';
import { normaliseRunError } from '../../../lib/core/turn.js';

class StoreThrottledLike extends AgentKernelError {
  constructor() {
    super('store-throttled', 'The store was throttled; try again shortly.');
  }
}

/** What the OpenAI SDK throws when a tool throws: the tool's error kept in `error`. */
class ToolCallErrorLike extends Error {
  readonly error: unknown;
  constructor(error: unknown) {
    super(`Failed to run function tools: ${error}`);
    this.error = error;
  }
}

const signal = new AbortController().signal;

describe('normaliseRunError', () => {
  it('surfaces our own error wrapped by a framework (in `error` or `cause`), keeping its code', () => {
    const ours = new StoreThrottledLike();
    expect(normaliseRunError(new ToolCallErrorLike(ours), 'a', signal)).toBe(ours);
    const deeper = new Error('outer', { cause: new ToolCallErrorLike(ours) });
    expect(normaliseRunError(deeper, 'a', signal).code).toBe('store-throttled');
  });

  it('wraps a foreign error with nothing of ours inside as runner-error', () => {
    const error = normaliseRunError(new ToolCallErrorLike(new Error('boom')), 'a', signal);
    expect(error).toBeInstanceOf(RunnerError);
    expect(error.code).toBe('runner-error');
  });
});
