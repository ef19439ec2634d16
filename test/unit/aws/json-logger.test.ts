import { afterEach, describe, expect, it } from 'vitest';
import { withJsonLogging } from '../../../lib/aws/middleware/json-logging.js';
import { jsonObservability } from '../../../lib/aws/middleware/json-observability.js';
import { observability, withLogging } from '../../../lib/aws/middleware/observability.js';
import { fakeLambdaContext } from '../../../lib/testing/index.js';
import { captureJsonLines } from '../../helpers/json-lines.js';

const lines = captureJsonLines();
afterEach(() => {
  delete process.env._X_AMZN_TRACE_ID;
});

const env = { OPENAI_API_KEY: 'sk-PLANTEDenvKey0000000000', POWERTOOLS_LOG_LEVEL: 'INFO' };

/** The same calls through a logger and its front; the lines, without their timestamps. */
async function linesOf(kind: 'powertools' | 'json'): Promise<Record<string, unknown>[]> {
  lines.length = 0;
  process.env._X_AMZN_TRACE_ID =
    'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
  const o = kind === 'json' ? await jsonObservability('fanout', env) : observability('fanout', env);
  const work = async () => {
    o.logger.info('plain');
    o.logger.warn('with fields', { connectionId: 'c-1', token: 'secret-value' });
    o.logger.error('failed', new Error(`key ${env.OPENAI_API_KEY}`));
    o.logger.error({ message: 'object input', runId: 'r-1' }, { level: 'dropped' });
    o.logger.debug('below the level');
    return 'ok';
  };
  const context = { ...fakeLambdaContext('fanout'), awsRequestId: 'req-1' };
  const handler =
    kind === 'json'
      ? withJsonLogging(o.logger as never, work)
      : withLogging(o.logger as never, work);
  await handler({}, context);
  await handler({}, context);
  return lines.map(({ timestamp, ...rest }) => {
    expect(typeof timestamp).toBe('string');
    return rest;
  });
}

describe('LambdaJsonLogger', () => {
  it('takes a log level named like an Object.prototype member for no level (INFO)', async () => {
    // Prepare
    lines.length = 0;
    const o = await jsonObservability('fanout', { POWERTOOLS_LOG_LEVEL: 'valueOf' });

    // Act
    o.logger.info('shown');
    o.logger.debug('hidden');

    // Assess
    expect(lines.map((l) => l.message)).toEqual(['shown']);
  });

  it("writes the Powertools logger's lines, field for field, for the same calls", async () => {
    const powertools = await linesOf('powertools');
    const json = await linesOf('json');
    expect(powertools.length).toBeGreaterThan(8);
    expect(json).toEqual(powertools);
    expect(json[0]).toMatchObject({
      level: 'INFO',
      message: 'plain',
      service: 'fanout',
      cold_start: expect.any(Boolean),
      function_name: expect.any(String),
      function_request_id: 'req-1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    });
    expect(json.find((l) => l.message === 'failed')?.error).toMatchObject({
      name: 'Error',
      message: expect.stringContaining('key'),
    });
    expect(JSON.stringify(json)).not.toContain(env.OPENAI_API_KEY);
  });
});
