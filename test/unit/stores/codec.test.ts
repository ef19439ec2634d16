import { randomBytes } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../../lib/stores/dynamodb/codec.js';

describe('payload codec', () => {
  it('keeps small JSON as text and compresses larger JSON with brotli', () => {
    // Prepare
    const small = JSON.stringify({ a: 1 });
    const large = JSON.stringify({ text: 'hello world '.repeat(2000) });

    // Act
    const [s, l] = [encode(small), encode(large)];

    // Assess
    expect(s).toEqual({ enc: 'json', body: small, size: small.length });
    expect(l.enc).toBe('br');
    expect(l.size).toBeLessThan(large.length / 10);
    expect(decode(l.enc, l.body)).toBe(large);
  });

  it('round-trips text that does not compress', () => {
    // Prepare
    const json = JSON.stringify(randomBytes(50_000).toString('base64'));

    // Act
    const encoded = encode(json);

    // Assess
    expect(decode(encoded.enc, encoded.body)).toBe(json);
  });

  it.each([
    ['a binary json payload', 'json', Buffer.from('{}'), /must be a string/],
    ['a text brotli payload', 'br', 'abc', /must be binary/],
    ['garbage brotli', 'br', Buffer.from('garbage'), /bad br compression/],
    ['an unknown encoding', 'zstd', Buffer.from('x'), /unknown encoding/],
    ['a decompression bomb', 'br', brotliCompressSync(Buffer.alloc(65 * 1024 * 1024)), /bad br/],
  ])('refuses %s with a readable message', (_, enc, body, message) => {
    // Act
    const run = () => decode(enc, body);

    // Assess
    expect(run).toThrow(message);
  });
});
