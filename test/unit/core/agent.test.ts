import { describe, expect, it } from 'vitest';
import { Agent } from '../../../lib/core/index.js';
import { FakeRunner, fakeAgent } from './fake-runner.js';

describe('Agent', () => {
  it('describes itself with an A2A card', () => {
    // Prepare
    const skill = { id: 'math', name: 'Math', description: 'Adds numbers', tags: ['calc'] };
    const agent = fakeAgent(new FakeRunner(), {
      name: 'calc',
      description: 'A calculator',
      version: '2.1.0',
      skills: [skill],
    });

    // Act
    const card = agent.card();

    // Assess
    expect(card).toEqual({
      name: 'calc',
      description: 'A calculator',
      version: '2.1.0',
      capabilities: { streaming: true, pushNotifications: false, humanInTheLoop: false },
      defaultInputModes: ['text/plain', 'image/*', 'application/octet-stream'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [skill],
    });
  });

  it('fills defaults and keeps its own copy of the declared run options', () => {
    // Prepare
    const runOptions: Record<string, unknown> = { maxTurns: 2 };

    // Act
    const agent = new Agent({ name: 'a', runner: new FakeRunner(), native: {}, runOptions });
    runOptions.maxTurns = 99;

    // Assess
    expect(agent.description).toBe('');
    expect(agent.version).toBe('1.0.0');
    expect(agent.preHooks).toEqual([]);
    expect(agent.postHooks).toEqual([]);
    expect(agent.runOptions).toEqual({ maxTurns: 2 });
    expect(Object.isFrozen(agent.runOptions)).toBe(true);
    expect(agent.card().skills).toEqual([]);
  });

  it.each(['', 'has space', 'a/b', 'x'.repeat(65)])('refuses the name %j', (name) => {
    // Prepare
    const runner = new FakeRunner();

    // Act
    const create = () => new Agent({ name, runner, native: {} });

    // Assess
    expect(create).toThrow(expect.objectContaining({ code: 'invalid-request' }));
  });
});
