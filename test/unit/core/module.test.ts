import { describe, expect, it } from 'vitest';
import { DuplicateAgent, Module, Runtime } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { FakeRunner, fakeAgent } from './fake-runner.js';

interface NativeAgent {
  id: string;
  about: string;
}

class TestModule extends Module<NativeAgent> {
  protected describe(native: NativeAgent) {
    return { name: native.id, description: native.about };
  }
}

function testModule() {
  return new TestModule(new FakeRunner());
}

describe('Module', () => {
  it('wraps native agents with their name, description and options', () => {
    // Prepare
    const module = testModule();
    const hook = { name: 'h', onRun: () => undefined };

    // Act
    const agent = module.add({ id: 'triage', about: 'Routes questions' }, { preHooks: [hook] });
    const renamed = module.add({ id: 'x', about: 'x' }, { name: 'billing', description: 'Bills' });

    // Assess
    expect(agent).toMatchObject({ name: 'triage', description: 'Routes questions' });
    expect(agent.native).toEqual({ id: 'triage', about: 'Routes questions' });
    expect(agent.runner).toBe(module.runner);
    expect(agent.preHooks).toEqual([hook]);
    expect(renamed).toMatchObject({ name: 'billing', description: 'Bills' });
    expect(module.agents).toEqual([agent, renamed]);
  });

  it('refuses two agents with one name', () => {
    // Prepare
    const module = testModule();
    module.add({ id: 'a', about: '' });

    // Act
    const again = () => module.add({ id: 'a', about: 'other' });

    // Assess
    expect(again).toThrow(DuplicateAgent);
    expect(module.agents).toHaveLength(1);
  });

  it('registers its agents into a Runtime, which refuses duplicates across modules', () => {
    // Prepare
    const first = testModule();
    first.add({ id: 'a', about: '' });
    first.add({ id: 'b', about: '' });
    const second = testModule();
    second.add({ id: 'b', about: 'clash' });

    // Act
    const runtime = new Runtime({ sessions: new InMemorySessionStore(), modules: [first] });
    const clash = () => runtime.use(second);
    const agentClash = () => runtime.register(fakeAgent(new FakeRunner(), { name: 'a' }));

    // Assess
    expect(runtime.agents.map((a) => a.name)).toEqual(['a', 'b']);
    expect(runtime.agent('a').description).toBe('');
    expect(clash).toThrow(expect.objectContaining({ code: 'duplicate-agent' }));
    expect(agentClash).toThrow(DuplicateAgent);
  });

  it('registers none of a module’s agents when one of them clashes', () => {
    // Prepare
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(new FakeRunner(), { name: 'b' })],
    });
    const module = testModule();
    module.add({ id: 'a', about: '' });
    module.add({ id: 'b', about: '' });

    // Act
    const use = () => runtime.use(module);

    // Assess
    expect(use).toThrow(DuplicateAgent);
    expect(runtime.agents.map((a) => a.name)).toEqual(['b']);
  });
});
