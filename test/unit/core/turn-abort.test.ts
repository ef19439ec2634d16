import { describe, expect, it } from 'vitest';
import { TurnAbort } from '../../../lib/core/turn-abort.js';

describe('TurnAbort (the turn signal, made when first read)', () => {
  it('gives a signal already aborted with the reason when the turn aborted before it was read', () => {
    // Prepare
    const abort = new TurnAbort();
    const reason = new Error('the turn failed');

    // Act
    abort.abort(reason);

    // Assess
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
    expect(() => abort.throwIfAborted()).toThrow(reason);
  });

  it('follows the caller’s signal, whether it aborted before or after the signal was read', () => {
    // Prepare
    const early = new AbortController();
    const late = new AbortController();
    early.abort(new Error('early'));
    const first = new TurnAbort(early.signal);
    const second = new TurnAbort(late.signal);
    const read = second.signal;

    // Act
    late.abort(new Error('late'));

    // Assess
    expect(() => first.throwIfAborted()).toThrow('early');
    expect(first.signal.reason).toEqual(new Error('early'));
    expect(read.aborted).toBe(true);
    expect(read.reason).toEqual(new Error('late'));
  });

  it('is one signal for the whole turn, and not aborted while nothing aborted it', () => {
    // Prepare
    const caller = new AbortController();
    const abort = new TurnAbort(caller.signal);

    // Act
    abort.throwIfAborted();
    const signal = abort.signal;

    // Assess
    expect(abort.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
  });
});
