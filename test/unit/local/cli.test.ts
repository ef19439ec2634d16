import type { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { AgentNotFound } from '../../../lib/core/errors.js';
import { AGENTS_ENV, takeAgentsFlag, useAgentsEntry } from '../../../lib/local/agents-entry.js';
import {
  CliError,
  explain,
  isUnreachable,
  parseFlags,
  UsageError,
} from '../../../lib/local/cli.js';
import { functionFor } from '../../../lib/local/invoke.js';
import { javaProblem } from '../../global-setup-dynamodb.js';

describe('the --agents setting', () => {
  it.each([
    [['--agents', 'a.ts', 'x'], { rest: ['x'], path: 'a.ts' }],
    [['x', '--agents=b.ts'], { rest: ['x'], path: 'b.ts' }],
    [['x', 'y'], { rest: ['x', 'y'] }],
  ])('takes %j out of the arguments', (argv, expected) => {
    expect(takeAgentsFlag(argv)).toEqual(expected);
  });

  it('refuses a module that is not there, naming it, and changes nothing', () => {
    // Prepare
    const env: NodeJS.ProcessEnv = { [AGENTS_ENV]: 'nowhere/agents.ts' };

    // Act
    const act = () => useAgentsEntry([], env);

    // Assess
    expect(act).toThrow(CliError);
    expect(act).toThrow(/agents module not found: \S+nowhere\/agents\.ts/);
    expect(env[AGENTS_ENV]).toBe('nowhere/agents.ts');
  });

  it('leaves the demo in place when neither the flag nor the variable is set', () => {
    expect(useAgentsEntry(['a'], {})).toEqual({ rest: ['a'] });
  });
});

describe('explain (one line and a hint)', () => {
  it('keeps a CliError’s own hint', () => {
    expect(explain(new CliError('x', 'it broke', 'do this'))).toEqual({
      message: 'it broke',
      hint: 'do this',
    });
  });

  it('names a kernel error’s code, and only the first line of any message', () => {
    expect(explain(new AgentNotFound('zed')).message).toBe(
      'No agent named "zed" is registered. (agent-not-found)',
    );
    expect(explain(new Error('first\nsecond'))).toEqual({
      message: 'first',
      hint: 'AGENT_KERNEL_DEBUG=1 prints the stack trace.',
    });
  });

  it('hints at the way out of a port in use and of a refused connection', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use'), {
      code: 'EADDRINUSE',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(explain(inUse).hint).toMatch(/set PORT/);
    expect(explain(refused).hint).toMatch(/is the emulator/);
  });

  it('sees a refused connection through causes and aggregates', () => {
    const refused = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    expect(isUnreachable(new Error('outer', { cause: new AggregateError([refused]) }))).toBe(true);
    expect(isUnreachable(new Error('other'))).toBe(false);
  });
});

describe('functionFor (invoke picks the function from the event)', () => {
  it.each([
    [
      { Records: [{ eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:r:1:runs.fifo' }] },
      'worker',
    ],
    [
      { Records: [{ eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:r:1:events.fifo' }] },
      'fanout',
    ],
    [
      { Records: [{ eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:r:1:approvals' }] },
      'approvals',
    ],
    [{ type: 'REQUEST', methodArn: 'arn' }, 'authorizer'],
    [{ requestContext: { eventType: 'CONNECT' } }, 'ws-connect'],
    [{ requestContext: { eventType: 'MESSAGE' } }, 'ws-message'],
    [{ rawPath: '/health', requestContext: { http: { method: 'GET' } } }, 'http'],
    [{ action: 'run' }, 'invoke'],
  ])('%j → %s', (event, name) => {
    expect(functionFor(event)).toBe(name);
  });

  it('asks for the function when the shape says nothing', () => {
    expect(() => functionFor({ hello: 1 }, 'x.json')).toThrow(/cannot tell which function x\.json/);
  });
});

describe('javaProblem (npm test’s DynamoDB Local needs Java 17)', () => {
  const fake = (result: object) => (() => result) as unknown as typeof spawnSync;

  it.each([
    ['openjdk version "17.0.15" 2025-04-15', undefined],
    ['openjdk version "21" 2023-09-19', undefined],
    ['openjdk version "11.0.2" 2019-01-15', /Java 17\+ needed/],
    ['java version "1.8.0_202"', /Java 17\+ needed/],
  ])('%s', (stderr, problem) => {
    const found = javaProblem(fake({ stderr, stdout: '' }));
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });

  it('says so when there is no java at all', () => {
    const found = javaProblem(fake({ error: new Error('spawnSync java ENOENT') }));
    expect(found).toMatch(/^Java not found/);
  });
});

describe('parseFlags (node:util parseArgs, strict)', () => {
  const options = { port: { type: 'string' }, force: { type: 'boolean' } } as const;

  it('answers the values and positionals', () => {
    expect(parseFlags(['a', '--port', '3', '--force'], options, 'usage: x')).toMatchObject({
      values: { port: '3', force: true },
      positionals: ['a'],
    });
  });

  it.each([
    [['--nope'], /^unknown option '--nope'$/],
    [['--port'], /'--port <value>' argument missing/],
    [['--force=1'], /--force/],
  ])(
    'refuses %j as a UsageError (invalid-argument, exit 2) with the usage as its hint',
    (argv, message) => {
      const act = () => parseFlags(argv, options, 'usage: x');
      expect(act).toThrow(UsageError);
      expect(act).toThrow(message);
      try {
        act();
      } catch (err) {
        expect(explain(err)).toEqual({
          message: expect.stringMatching(/\(invalid-argument\)$/),
          hint: 'usage: x',
        });
      }
    },
  );

  it('refuses a positional when the command takes none', () => {
    expect(() => parseFlags(['stray'], options, 'usage: x', false)).toThrow(UsageError);
  });
});
