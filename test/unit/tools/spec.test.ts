import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { currentToolContext, InvalidRequest } from '../../../lib/core/index.js';
import {
  ApprovalDenied,
  canonicalJson,
  DuplicateTool,
  defineTool,
  hashArgs,
  modelVisibleError,
  ToolArgsInvalid,
  ToolNotFound,
  ToolRegistry,
  ToolTimeout,
} from '../../../lib/tools/index.js';

const echo = (extra: object = {}) =>
  defineTool({
    name: 'echo',
    description: 'Echoes',
    input: z.object({ text: z.string() }),
    handler: ({ text }, ctx) => ({
      text,
      callId: ctx.callId,
      inContext: currentToolContext().callId,
    }),
    ...extra,
  });

describe('defineTool', () => {
  it('exports the input as JSON Schema without $schema', () => {
    // Act
    const schema = echo().jsonSchema();

    // Assess
    expect(schema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    });
  });

  it('invokes directly with validation and a tool context', async () => {
    // Act
    const result = await echo().invoke({ text: 'hi' });

    // Assess
    expect(result).toMatchObject({ text: 'hi' });
    expect(result.callId).toBe(result.inContext);
    await expect(echo().invoke({ text: 1 })).rejects.toBeInstanceOf(ToolArgsInvalid);
  });

  it('refuses a name a framework cannot use', () => {
    // Act / Assess
    expect(() => echo({ name: 'bad name!' })).toThrow(InvalidRequest);
  });
});

describe('ToolRegistry', () => {
  it('refuses duplicates, answers get and filters by target', () => {
    // Prepare
    const registry = new ToolRegistry([echo(), echo({ name: 'only_a', targets: ['a'] })]);

    // Act / Assess
    expect(() => registry.register(echo())).toThrow(DuplicateTool);
    expect(registry.get('echo').name).toBe('echo');
    expect(() => registry.get('nope')).toThrow(ToolNotFound);
    expect(registry.forTarget('a').map((s) => s.name)).toEqual(['echo', 'only_a']);
    expect(registry.forTarget('b').map((s) => s.name)).toEqual(['echo']);
  });
});

describe('modelVisibleError', () => {
  it('keeps our messages and shows only the class name of a foreign error', () => {
    // Act / Assess
    expect(modelVisibleError(new ToolTimeout('t', 5))).toEqual({
      error: { kind: 'tool-timeout', message: 'Tool "t" did not finish within 5 ms.' },
    });
    expect(modelVisibleError(new ApprovalDenied('t')).error.kind).toBe('approval-denied');
    const foreign = modelVisibleError(new RangeError('password=hunter2'));
    expect(foreign).toEqual({
      error: { kind: 'tool-failed', message: 'The tool failed with RangeError.' },
    });
    expect(JSON.stringify(modelVisibleError('raw secret'))).not.toContain('secret');
  });
});

describe('canonical arguments', () => {
  it('hashes equal arguments equally whatever the key order', () => {
    // Act / Assess
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(hashArgs({ a: 1, b: 2 })).toBe(hashArgs({ b: 2, a: 1 }));
    expect(hashArgs({ a: 1 })).not.toBe(hashArgs({ a: 2 }));
  });
});
