import { afterEach, beforeEach } from 'vitest';

/**
 * The JSON lines a test's code writes to stdout and stderr (Powertools writes warnings and
 * errors to stderr, the rest and EMF to stdout: on Lambda both reach CloudWatch Logs). Cleared
 * before each test; the streams are restored after it.
 */
export function captureJsonLines(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  const stdout = process.stdout.write;
  const stderr = process.stderr.write;
  beforeEach(() => {
    lines.length = 0;
    const capture = ((chunk: unknown) => {
      for (const line of String(chunk).trim().split('\n')) {
        if (line.startsWith('{')) lines.push(JSON.parse(line));
      }
      return true;
    }) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
  });
  afterEach(() => {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  });
  return lines;
}
