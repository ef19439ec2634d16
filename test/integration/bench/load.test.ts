import { describe, expect, it } from 'vitest';
import { formatLoad, type LoadOptions, runLoad } from '../../../bench/load.js';

// `npm run load` at tiny parameters: it runs, every turn finishes, and the report has its parts.
// The figures themselves are the bench's (docs/benchmarks.md), never asserted here.
describe('npm run load (bench/load.ts), tiny', () => {
  it('3 sockets, 6 turns through the local stack: no errors, latencies and requests per turn', async () => {
    const lines: string[] = [];
    const options: LoadOptions = {
      sockets: 3,
      turns: 6,
      ttftMs: 20,
      tokens: 5,
      tokensPerSecond: 200,
      turnTimeoutMs: 25_000,
      progress: (line) => lines.push(line),
    };
    const report = await runLoad(options);
    expect(report.errors).toEqual({});
    expect(report.finished).toBe(6);
    expect(report.firstTokenMs.p50).toBeGreaterThan(0);
    expect(report.turnMs.p99).toBeGreaterThanOrEqual(report.turnMs.p50);
    expect(report.turnMs.p50).toBeGreaterThanOrEqual(report.firstTokenMs.p50);
    // A WebSocket turn: ws-message, then the worker, then at least one fan-out.
    expect(report.lambdaByFunction['ws-message']).toBe(1);
    // The local poller hands the worker up to 10 jobs per invocation (AWS: 1, infra/functions.ts).
    expect(report.lambdaByFunction.worker).toBeGreaterThan(0);
    expect(report.lambdaByFunction.worker).toBeLessThanOrEqual(1);
    expect(report.perTurn.sqs).toBeGreaterThan(0);
    expect(report.perTurn.dynamodb).toBeGreaterThan(0);
    expect(report.perTurn.postToConnection).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^load: 6\/6 turns/);
    expect(formatLoad(report, options)).toMatch(/first token: p50 \d+ ms, p99 \d+ ms/);
  }, 60_000);
});
