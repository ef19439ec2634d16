import { describe, expect, it } from 'vitest';
import { resolveAgents } from '../../../lib/aws/wiring/agents-entry.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { ConfigError } from '../../../lib/aws/wiring/errors.js';
import { Agent } from '../../../lib/core/agent.js';
import type { Runner } from '../../../lib/core/runner.js';

describe('loadConfig', () => {
  it('applies defaults and coerces numbers', () => {
    // Act
    const config = loadConfig({ TABLE_NAME: 'agents', SESSION_TTL_SECONDS: '3600' });

    // Assess
    expect(config).toMatchObject({
      TABLE_NAME: 'agents',
      SESSION_TTL_SECONDS: 3600,
      PAUSED_RUN_TTL_SECONDS: 86_400,
      RESUME_CLAIM_SECONDS: 960,
      DELIVERY_MODE: 'sqs-fanout',
      SYNC_RUN_TIMEOUT_MS: 25_000,
    });
  });

  it('reads how long a resume claim holds, in whole positive seconds', () => {
    // Act
    const config = loadConfig({ RESUME_CLAIM_SECONDS: '120' });
    const bad = () => loadConfig({ RESUME_CLAIM_SECONDS: '0' });

    // Assess
    expect(config.RESUME_CLAIM_SECONDS).toBe(120);
    expect(bad).toThrow(/RESUME_CLAIM_SECONDS/);
  });

  it('reads the agent names ws-message checks, and refuses a malformed list', () => {
    // Act / Assess
    expect(loadConfig({ AGENT_NAMES: 'demo,support_2' }).AGENT_NAMES).toEqual(
      new Set(['demo', 'support_2']),
    );
    expect(loadConfig({}).AGENT_NAMES).toBeUndefined();
    expect(() => loadConfig({ AGENT_NAMES: 'demo, support' })).toThrow(/AGENT_NAMES/);
    expect(() => loadConfig({ AGENT_NAMES: 'demo,,x' })).toThrow(ConfigError);
  });

  it('reads the back-office principals explicitly, never implying one', () => {
    // Act / Assess
    const config = loadConfig({
      APPROVER_PRINCIPALS: 'back-office, ops-bot',
      INVOKE_PRINCIPAL: 'svc',
    });
    expect(config.APPROVER_PRINCIPALS).toEqual(new Set(['back-office', 'ops-bot']));
    expect(config.INVOKE_PRINCIPAL).toBe('svc');
    expect(loadConfig({}).APPROVER_PRINCIPALS).toBeUndefined();
    expect(loadConfig({}).INVOKE_PRINCIPAL).toBeUndefined();
    expect(() => loadConfig({ APPROVER_PRINCIPALS: 'a,,b' })).toThrow(/APPROVER_PRINCIPALS/);
    expect(() => loadConfig({ INVOKE_PRINCIPAL: 'x'.repeat(1025) })).toThrow(/INVOKE_PRINCIPAL/);
  });

  it('fails at cold start naming every missing or bad variable', () => {
    // Act
    const attempt = () =>
      loadConfig({ RUN_QUEUE_URL: 'not a url', DELIVERY_MODE: 'pigeon' }, ['TABLE_NAME']);

    // Assess
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      expect((err as ConfigError).variables).toEqual(
        expect.arrayContaining(['RUN_QUEUE_URL', 'DELIVERY_MODE']),
      );
      expect((err as Error).message).toMatch(/RUN_QUEUE_URL/);
    }
    expect(() => loadConfig({}, ['TABLE_NAME', 'RUN_QUEUE_URL'])).toThrow(
      /TABLE_NAME is required; RUN_QUEUE_URL is required/,
    );
  });

  it('treats empty strings as unset and refuses hs256 without a secret', () => {
    expect(loadConfig({ TABLE_NAME: '' }).TABLE_NAME).toBeUndefined();
    expect(() => loadConfig({ AUTH_MODE: 'hs256' })).toThrow(/JWT_SECRET is required/);
    expect(() => loadConfig({ SYNC_RUN_TIMEOUT_MS: '60000' })).toThrow(/SYNC_RUN_TIMEOUT_MS/);
  });
});

describe('resolveAgents', () => {
  const runner: Runner = {
    name: 'noop',
    supportsStreaming: false,
    supportsPause: false,
    reservedRunOptions: {},
    stream: async function* () {
      yield* [];
      return { status: 'completed', text: '', state: null, context: {} };
    },
  };
  const agent = new Agent({ name: 'a', runner, native: null });

  it.each([
    ['named exports', { agents: [agent] }],
    ['a default object', { default: { agents: [agent] } }],
    ['a default factory', { default: async () => ({ agents: [agent] }) }],
    ['createAgents()', { createAgents: () => ({ agents: [agent] }) }],
  ])('accepts %s', async (_label, entry) => {
    expect((await resolveAgents(entry)).agents).toEqual([agent]);
  });

  it('refuses an entry with no agents, with a readable message', async () => {
    await expect(resolveAgents({ agents: [] })).rejects.toMatchObject({
      code: 'agents-entry-error',
    });
    await expect(resolveAgents({ nothing: true })).rejects.toThrow(
      /must export `agents` or `modules`/,
    );
  });
});
