import { describe, expect, it } from 'vitest';
import { observability, withLogging } from '../../../lib/aws/middleware/observability.js';
import { inSpan } from '../../../lib/core/index.js';
import { fakeLambdaContext } from '../../../lib/testing/index.js';
import { CloudWatchTracer } from '../../../lib/tracing/index.js';
import { captureJsonLines } from '../../helpers/json-lines.js';
import { expectValidEmf } from '../tracing/helpers.js';

const API_KEY = 'sk-PLANTEDenvKey0000000000';
const LATE_KEY = 'late-model-key-8f3a91';

const lines = captureJsonLines();

const env = {
  AGENT_KERNEL_TRACING: 'cloudwatch',
  AGENT_KERNEL_XRAY: 'false',
  OPENAI_API_KEY: API_KEY,
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

describe('observability: one logger per function', () => {
  it("puts the active span's ids on a handler's lines and redacts them", async () => {
    // Prepare
    const { logger, tracer } = observability('worker', env);

    // Act
    await inSpan(tracer, 'job', { sessionId: 's-1', runId: 'r-1' }, {}, async () => {
      logger.info('job started', { headers: { authorization: 'Bearer abcdefghijkl' } });
      logger.info(`calling the model with ${API_KEY}`);
    });

    // Assess
    const [started, calling] = lines;
    expect(started).toMatchObject({
      level: 'INFO',
      service: 'worker',
      message: 'job started',
      sessionId: 's-1',
      runId: 'r-1',
      headers: { authorization: '[REDACTED]' },
    });
    expect(started?.traceId).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(calling?.message).toBe('calling the model with [REDACTED]');
    expect(JSON.stringify(lines)).not.toContain(API_KEY);
  });

  it("writes the tracer's run lines through the same logger, with the run's ids", async () => {
    // Prepare
    const { tracer } = observability('worker', env);
    expect(tracer).toBeInstanceOf(CloudWatchTracer);

    // Act
    const run = tracer.startSpan('run', { sessionId: 's-2', runId: 'r-2', agent: 'demo' });
    run.recordError(new Error('model said no'));
    run.end();

    // Assess: the Powertools line shape (service, upper-case level) and the ids of the run.
    const failed = lines.find((l) => l.message === 'run failed');
    expect(failed).toMatchObject({ level: 'ERROR', service: 'worker', sessionId: 's-2' });
    expect(failed).toMatchObject({ runId: 'r-2', agent: 'demo', error: { type: 'Error' } });
    // The run's metrics ride in that Powertools line (valid EMF), with no id as a dimension.
    expect(lines.filter((l) => l._aws)).toEqual([failed]);
    expectValidEmf(failed as Record<string, unknown>);
    expect(failed).toMatchObject({
      RunErrors: 1,
      _aws: { CloudWatchMetrics: [{ Dimensions: [['agent']] }] },
    });
  });

  it('hides a secret learnt after the logger was made (the model key read at cold start)', () => {
    // Prepare
    const { logger, redactor } = observability('http', env);

    // Act
    redactor.learn(LATE_KEY);
    logger.warn(`upstream refused key ${LATE_KEY}`);

    // Assess
    expect(lines[0]?.message).toBe('upstream refused key [REDACTED]');
  });

  it('opens one span per invocation when asked, and none when tracing is off', async () => {
    // Prepare
    const traced = observability('invoke', env);
    const off = observability('invoke', { POWERTOOLS_LOG_LEVEL: 'INFO' });
    const handler = (o: typeof traced) =>
      withLogging(
        o.logger,
        async () => {
          o.logger.info('inside');
          return 'ok';
        },
        { tracer: o.tracer, span: 'invoke' },
      );

    // Act
    await handler(traced)({}, fakeLambdaContext('invoke'));
    await handler(off)({}, fakeLambdaContext('invoke'));

    // Assess: the traced call's line names its trace; the untraced one has none.
    const inside = lines.filter((l) => l.message === 'inside');
    expect(inside).toHaveLength(2);
    expect(inside[0]?.traceId).toMatch(/^1-/);
    expect(inside[0]?.function_name).toBe('invoke');
    expect(inside[1]?.traceId).toBeUndefined();
  });
});
