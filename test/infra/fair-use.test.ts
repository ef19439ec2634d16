import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourcesOf, type Synthesised, stubFunctionsDir, synthesise } from './helpers.js';

// Fair use per principal as the stack deploys it: the limits reach the front-door functions as
// QUOTA_* variables, and the Function URL (no API Gateway throttle) gets reserved concurrency.
let dir: string;
let tuned: Synthesised;
let defaults: Synthesised;

beforeAll(() => {
  dir = stubFunctionsDir();
  const context = {
    quotaRunsInFlight: 3,
    quotaTokensPerDay: 500000,
    streamReservedConcurrency: 25,
    mcpAgentTools: 'demo,other',
  };
  tuned = synthesise({ functionsDir: dir, bundle: false, context });
  defaults = synthesise({ functionsDir: dir, bundle: false });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const s of [tuned, defaults]) rmSync(s.outdir, { recursive: true, force: true });
});

const fnOf = (synth: Synthesised, name: string) => {
  const all = resourcesOf(synth.template, 'AWS::Lambda::Function');
  const id = Object.keys(all).find((key) => new RegExp(`^${name}Function[A-Z0-9]{8}$`).test(key));
  return all[id as string]!.Properties;
};
const METERED = ['Invoke', 'Http', 'Worker', 'WsConnect', 'WsDisconnect', 'WsMessage', 'Stream'];

describe('fair use in the stack', () => {
  it('every front-door function meters with the context limits; the others do not', () => {
    for (const name of METERED) {
      expect(fnOf(tuned, name).Environment.Variables, name).toMatchObject({
        QUOTAS: 'on',
        QUOTA_CONNECTIONS: '20',
        QUOTA_RUNS_IN_FLIGHT: '3',
        QUOTA_RUNS_PER_MINUTE: '60',
        QUOTA_TOKENS_PER_DAY: '500000',
      });
    }
    for (const name of ['Fanout', 'Approvals', 'Authorizer']) {
      expect(fnOf(tuned, name).Environment.Variables.QUOTAS, name).toBeUndefined();
    }
  });

  it('defaults: on, no token ceiling; the stream function has no reserved concurrency', () => {
    const env = fnOf(defaults, 'Http').Environment.Variables;
    expect(env).toMatchObject({ QUOTAS: 'on', QUOTA_RUNS_IN_FLIGHT: '10' });
    expect(env.QUOTA_TOKENS_PER_DAY).toBeUndefined();
    expect(fnOf(defaults, 'Stream').ReservedConcurrentExecutions).toBeUndefined();
  });

  it('streamReservedConcurrency caps the Function URL’s concurrent streams', () => {
    expect(fnOf(tuned, 'Stream').ReservedConcurrentExecutions).toBe(25);
    expect(fnOf(tuned, 'Http').ReservedConcurrentExecutions).toBeUndefined();
  });

  it('mcpAgentTools reaches the stream function alone as MCP_AGENT_TOOLS; unset by default', () => {
    expect(fnOf(tuned, 'Stream').Environment.Variables.MCP_AGENT_TOOLS).toBe('demo,other');
    expect(fnOf(tuned, 'Http').Environment.Variables.MCP_AGENT_TOOLS).toBeUndefined();
    expect(fnOf(defaults, 'Stream').Environment.Variables.MCP_AGENT_TOOLS).toBeUndefined();
  });
});
