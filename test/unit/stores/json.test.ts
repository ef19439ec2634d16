import { describe, expect, it } from 'vitest';
import {
  jsonProblem,
  parseStoredJson,
  toStoredJson,
  UnsafeJson,
} from '../../../lib/stores/json.js';

describe('stored JSON', () => {
  it('round-trips plain JSON, including text that mentions constructor', () => {
    // Prepare
    const value = { text: 'a "constructor": value in a string', list: [1, null, true] };

    // Act
    const parsed = parseStoredJson(toStoredJson(value));

    // Assess
    expect(parsed).toEqual(value);
  });

  it('round-trips LangChain serialised messages (the word constructor as a value)', () => {
    // Prepare
    const value = {
      messages: [{ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessage'] }],
      note: 'constructor',
    };

    // Act
    const text = toStoredJson(value);

    // Assess
    expect(parseStoredJson(text)).toEqual(value);
  });

  it.each([
    ['__proto__', '{"a":{"__proto__":{"polluted":true}}}'],
    ['constructor', '{"constructor":{"prototype":{}}}'],
    ['escaped __proto__', '{"\\u005f_proto__":{}}'],
    ['spaced key', '{ "__proto__" : 1 }'],
    ['constructor key after a line break', '{"a":1,\n"constructor"\n:{}}'],
    ['constructor key beside the word as a value', '{"type":"constructor","constructor":{}}'],
    ['key after a string ending in a backslash', '{"a":"x\\\\","constructor":1}'],
  ])('refuses a %s key on load', (_, text) => {
    // Act
    const parse = () => parseStoredJson(text);

    // Assess
    expect(parse).toThrow(UnsafeJson);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses to store what would not load', () => {
    // Prepare
    const poisoned = JSON.parse('{"__proto__":{"x":1}}');

    // Act
    const store = () => toStoredJson(poisoned);

    // Assess
    expect(store).toThrow(/forbidden key "__proto__"/);
    expect(() => toStoredJson(undefined)).toThrow(UnsafeJson);
  });

  it('describes parse failures for corrupt-record errors', () => {
    // Prepare
    let syntax: unknown;
    try {
      parseStoredJson('{');
    } catch (err) {
      syntax = err;
    }

    // Act
    const message = jsonProblem(syntax);

    // Assess
    expect(message).toMatch(/^invalid JSON/);
  });
});
