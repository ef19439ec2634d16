import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingDependency } from '../../../lib/core/errors.js';
import {
  availableIntegrations,
  getIntegration,
  IntegrationError,
} from '../../../lib/frameworks/base/index.js';
import { DEMO_PLUGIN_DIR, makeApp, type PluginFixture } from './fixture-app.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function app(plugins: Record<string, PluginFixture>, field?: Parameters<typeof makeApp>[1]) {
  const root = makeApp(plugins, field);
  roots.push(root);
  return root;
}

/** Source of a plugin module whose INTEGRATION is `fields` plus valid defaults. */
function pluginSource(fields: string): string {
  return (
    'export const INTEGRATION = { name: "bad", requires: [], extra: "bad-plugin", ' +
    'exportTool() {}, bindContext() { return {}; }, bindApproval() {}, ' +
    `${fields} };`
  );
}

function plugin(index: string, declared = 'bad'): PluginFixture {
  return {
    manifest: { agentKernel: { integrations: { [declared]: './index.js#INTEGRATION' } } },
    files: { 'index.js': index },
  };
}

async function discover(root: string) {
  const warnings: string[] = [];
  const found = await availableIntegrations({
    root,
    refresh: true,
    logger: { warn: (message) => warnings.push(message) },
  });
  return { names: [...found.keys()], warnings };
}

describe('integration discovery', () => {
  it('finds a plugin declared by a dependency, with no change to the project', async () => {
    // Prepare
    const root = app({ 'agent-kernel-demo-plugin': 'demo' });

    // Act
    const { names, warnings } = await discover(root);

    // Assess
    expect(names).toEqual(['demo']);
    expect(warnings).toEqual([]);
    expect((await getIntegration('demo', { root })).name).toBe('demo');
  });

  it.each(['devDependencies', 'optionalDependencies'] as const)('reads %s too', async (field) => {
    // Prepare
    const root = app({ 'agent-kernel-demo-plugin': 'demo' }, field);

    // Act
    const { names } = await discover(root);

    // Assess
    expect(names).toEqual(['demo']);
  });

  const skipped: [string, PluginFixture, RegExp][] = [
    [
      'a missing module',
      { manifest: { agentKernel: { integrations: { bad: './gone.js#INTEGRATION' } } } },
      /gone\.js does not exist; skipped/,
    ],
    ['a missing export', plugin('export const OTHER = 1;'), /no export "INTEGRATION"; skipped/],
    [
      'a throwing import',
      plugin('throw new Error("boom at import");'),
      /importing its module failed \(boom at import\); skipped/,
    ],
    [
      'a throwing constructor',
      plugin('export class INTEGRATION { constructor() { throw new Error("boom in ctor"); } }'),
      /creating it failed \(boom in ctor\); skipped/,
    ],
    [
      'an object that is not an integration',
      plugin('export const INTEGRATION = { name: "bad" };'),
      /not an integration \(no exportTool, bindContext, bindApproval method\); skipped/,
    ],
    ['a name of the wrong type', plugin(pluginSource('name: 42')), /"name" is a number/],
    ['requires of the wrong type', plugin(pluginSource('requires: "x"')), /"requires" is a string/],
    ['extra of the wrong type', plugin(pluginSource('extra: null')), /"extra" is null/],
    ['a compileFlow that is no function', plugin(pluginSource('compileFlow: 1')), /"compileFlow"/],
    [
      'a name other than the declared one',
      plugin(pluginSource('name: "other"')),
      /calls itself "other", not the declared "bad"; skipped/,
    ],
    [
      'a duplicate name (the first wins)',
      plugin(pluginSource('name: "demo"'), 'demo'),
      /Integration "demo" of package "zz-bad-plugin": the name is taken/,
    ],
    [
      'a declaration that is not an object',
      { manifest: { agentKernel: { integrations: 'index.js' } } },
      /"agentKernel.integrations" is not an object; skipped/,
    ],
    [
      'an entry that is not a string',
      { manifest: { agentKernel: { integrations: { bad: 42 } } } },
      /not a "path#export" string; skipped/,
    ],
    ['an unreadable package.json', { manifest: '{ not json' }, /package.json cannot be read/],
  ];
  it.each(skipped)('warns about and skips only %s', async (_label, bad, warning) => {
    // Prepare
    const root = app({ 'agent-kernel-demo-plugin': 'demo', 'zz-bad-plugin': bad });

    // Act
    const { names, warnings } = await discover(root);

    // Assess
    expect(names).toEqual(['demo']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(warning);
  });

  it('constructs an exported class and accepts a factory function', async () => {
    // Prepare
    const body = pluginSource('').replace('export const INTEGRATION = ', 'const value = ');
    const root = app({
      'class-plugin': plugin(
        `${body.replace('"bad"', '"made"')} export class INTEGRATION { constructor() { Object.assign(this, value); } }`,
        'made',
      ),
      'factory-plugin': plugin(
        `${body.replace('"bad"', '"built"')} export const INTEGRATION = async () => value;`,
        'built',
      ),
    });

    // Act
    const { names, warnings } = await discover(root);

    // Assess
    expect(warnings).toEqual([]);
    expect(names).toEqual(['made', 'built']);
  });

  it('answers MissingDependency for a known integration whose framework is not installed', async () => {
    // Prepare: the built-in openai integration needs @openai/agents, absent from this app.
    const root = app({
      'needy-plugin': plugin(
        pluginSource('name: "needy", requires: ["not-installed-sdk"], extra: "needy-sdk"'),
        'needy',
      ),
    });

    // Act
    const { names, warnings } = await discover(root);

    // Assess
    expect(names).toEqual([]);
    expect(warnings).toEqual([]);
    await expect(getIntegration('openai', { root })).rejects.toThrow(MissingDependency);
    await expect(getIntegration('openai', { root })).rejects.toThrow(/npm install @openai\/agents/);
    await expect(getIntegration('needy', { root })).rejects.toThrow(/npm install needy-sdk/);
  });

  it('answers IntegrationError for an unknown name, listing what is available', async () => {
    // Prepare
    const root = app({ 'agent-kernel-demo-plugin': 'demo' });

    // Act
    const lookup = getIntegration('nope', { root, refresh: true });

    // Assess
    await expect(lookup).rejects.toThrow(IntegrationError);
    await expect(lookup).rejects.toThrow(/available: demo/);
  });

  it('answers from the previous search until asked to refresh', async () => {
    // Prepare
    const root = app({});
    expect((await discover(root)).names).toEqual([]);
    cpSync(DEMO_PLUGIN_DIR, join(root, 'node_modules', 'agent-kernel-demo-plugin'), {
      recursive: true,
    });
    const manifest = { name: 'app', dependencies: { 'agent-kernel-demo-plugin': '1.0.0' } };
    writeFileSync(join(root, 'package.json'), JSON.stringify(manifest));

    // Act
    const cached = await availableIntegrations({ root });
    const fresh = await availableIntegrations({ root, refresh: true });

    // Assess
    expect([...cached.keys()]).toEqual([]);
    expect([...fresh.keys()]).toEqual(['demo']);
    expect(fresh.get('demo')?.name).toBe('demo');
  });

  it('finds the built-in openai integration where @openai/agents is installed', async () => {
    // Act
    const found = await getIntegration('openai', { root: process.cwd(), refresh: true });

    // Assess
    expect(found.name).toBe('openai');
    expect(found.requires).toEqual(['@openai/agents']);
  });
});
