import { FunctionTool } from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import { StrandsRunner, strandsAgent } from '../../../../lib/frameworks/strands/index.js';

const tool = (name: string) =>
  new FunctionTool({ name, description: `${name} things`, callback: () => 'ok' });

describe('StrandsRunner', () => {
  it('describes the tools of nested tool lists, for a card', () => {
    // Act
    const tools = new StrandsRunner().describeTools({
      name: 'a',
      tools: [tool('one'), [tool('two'), [tool('three')]]],
    });

    // Assess
    expect(tools).toEqual([
      { name: 'one', description: 'one things' },
      { name: 'two', description: 'two things' },
      { name: 'three', description: 'three things' },
    ]);
  });

  it('refuses a reserved run option when the agent is declared', () => {
    // Act
    const declare = () => strandsAgent({ name: 'a' }, { runOptions: { cancelSignal: true } });

    // Assess
    expect(declare).toThrow(expect.objectContaining({ code: 'reserved-run-option' }));
  });
});
