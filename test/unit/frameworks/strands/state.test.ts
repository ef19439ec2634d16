import { describe, expect, it } from 'vitest';
import { SessionSlotStorage } from '../../../../lib/frameworks/strands/index.js';
import { resumeArgs } from '../../../../lib/frameworks/strands/pause.js';
import { toUserContent } from '../../../../lib/frameworks/strands/state.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SessionSlotStorage', () => {
  it('keeps what Strands wrote as exact text and lists keys by prefix, sorted', async () => {
    // Prepare
    const storage = new SessionSlotStorage();

    // Act
    await storage.write('s/b.json', bytes('{"b": 1}'));
    await storage.write('s/a.json', bytes('{"a":2}'));
    await storage.write('t/c.json', bytes('x'));
    await storage.delete('t/c.json');
    const again = SessionSlotStorage.fromSlot('s1', storage.toSlot(), 'state');

    // Assess
    expect(await storage.list('s/')).toEqual(['s/a.json', 's/b.json']);
    expect(storage.toSlot()).toEqual({
      schemaVersion: 1,
      entries: { 's/a.json': '{"a":2}', 's/b.json': '{"b": 1}' },
    });
    expect(new TextDecoder().decode((await again.read('s/b.json')) ?? undefined)).toBe('{"b": 1}');
    expect(await again.read('missing')).toBeNull();
  });

  it('refuses a slot of another shape as a corrupt session', () => {
    // Act
    const load = () => SessionSlotStorage.fromSlot('s1', { schemaVersion: 2 }, 'state');

    // Assess
    expect(load).toThrow(expect.objectContaining({ code: 'session-corrupt' }));
  });
});

describe('resumeArgs', () => {
  it('writes edited arguments into every copy of the call and answers each interrupt', () => {
    // Prepare
    const snapshot = {
      pending: { toolUse: { toolUseId: 'call_1', name: 'pay', input: { amount: 10 } } },
      other: { toolUse: { toolUseId: 'call_2', name: 'pay', input: { amount: 1 } } },
    };
    const paused = {
      schemaVersion: 1,
      entries: { 'latest.json': JSON.stringify(snapshot) },
      interrupts: [{ id: 'call_1', interruptId: 'hook:x', toolUseId: 'call_1' }],
    };

    // Act
    const { storage, args } = resumeArgs('s1', paused, [
      { id: 'call_1', status: 'approved', arguments: { amount: 12 } },
    ]);

    // Assess
    const stored = JSON.parse(
      (storage.toSlot() as { entries: Record<string, string> }).entries['latest.json']!,
    );
    expect(stored.pending.toolUse.input).toEqual({ amount: 12 });
    expect(stored.other.toolUse.input).toEqual({ amount: 1 });
    expect(args).toEqual([
      {
        interruptResponse: {
          interruptId: 'hook:x',
          response: { status: 'approved', arguments: { amount: 12 } },
        },
      },
    ]);
  });

  it('refuses a paused state of another shape', () => {
    // Act
    const resume = () => resumeArgs('s1', { schemaVersion: 1, entries: {} }, []);

    // Assess
    expect(resume).toThrow(expect.objectContaining({ code: 'session-corrupt' }));
  });
});

describe('toUserContent', () => {
  it('maps text, image bytes and files; refuses a URL', () => {
    // Act
    const content = toUserContent([
      { type: 'text', text: 'look' },
      { type: 'image', data: 'aGk=', mimeType: 'image/jpg' },
      { type: 'file', data: 'aGk=', mimeType: 'text/plain', name: 'notes' },
    ]);
    const byUrl = () => toUserContent([{ type: 'image', url: 'https://example.com/a.png' }]);

    // Assess
    expect(content[0]).toEqual({ text: 'look' });
    expect(content[1]).toMatchObject({ image: { format: 'jpeg' } });
    expect(content[2]).toMatchObject({ document: { name: 'notes', format: 'txt' } });
    expect(byUrl).toThrow(expect.objectContaining({ code: 'unsupported-request' }));
  });
});
