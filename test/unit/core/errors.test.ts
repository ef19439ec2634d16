import { describe, expect, it } from 'vitest';
import {
  AgentKernelError,
  describeError,
  ModelError,
  SessionConflict,
  StreamHalt,
  toErrorInfo,
} from '../../../lib/core/index.js';

describe('errors', () => {
  it('carry a stable code and their class name', () => {
    // Prepare
    const errors = [
      new ModelError('busy', { status: 429 }),
      new ModelError('bad gateway', { status: 502 }),
      new StreamHalt('stop'),
      new SessionConflict('s1', 2, 3),
    ];

    // Act
    const described = errors.map((e) => [e.name, e.code]);

    // Assess
    expect(errors.every((e) => e instanceof AgentKernelError)).toBe(true);
    expect(described).toEqual([
      ['ModelError', 'model-rate-limited'],
      ['ModelError', 'model-error'],
      ['StreamHalt', 'stream-halted'],
      ['SessionConflict', 'session-conflict'],
    ]);
  });

  it('turn any thrown value into a code and a readable message', () => {
    // Prepare
    const abort = new DOMException('stopped', 'AbortError');

    // Act
    const infos = [
      toErrorInfo(new StreamHalt('no', 'blocked')),
      toErrorInfo(abort),
      toErrorInfo(new TypeError('bad')),
      toErrorInfo({ weird: true }),
    ];

    // Assess
    expect(infos).toEqual([
      { code: 'blocked', message: 'no' },
      { code: 'run-aborted', message: 'The run was aborted.' },
      { code: 'internal-error', message: 'bad' },
      { code: 'internal-error', message: '{"weird":true}' },
    ]);
    expect(describeError('plain')).toBe('plain');
    expect(describeError(1n)).toBe('1');
  });
});
