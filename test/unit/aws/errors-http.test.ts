import { describe, expect, it } from 'vitest';
import { RequestConflict } from '../../../lib/app/errors.js';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { errorBody, errorResponse, statusOf } from '../../../lib/aws/middleware/http-errors.js';
import { AgentKernelError } from '../../../lib/core/errors.js';
import { StoreThrottled } from '../../../lib/stores/dynamodb/base.js';
import { ERROR_CODES } from '../../../lib/transport/codes.js';
import { sampleEvent } from './sample.js';

describe('errors-http', () => {
  it('answers a throttled store with 503 and Retry-After', () => {
    // Prepare
    const err = new StoreThrottled('PutItem', new Error('ThrottlingException'));

    // Act
    const response = errorResponse(errorBody(err));

    // Assess
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body)).toMatchObject({ type: 'error', code: 'store-throttled' });
  });

  it('answers a run that reached its time limit with 504 and no Retry-After', () => {
    // Act
    const response = errorResponse(errorBody(new AgentKernelError('run-timeout', 'too slow')));

    // Assess
    expect(response.statusCode).toBe(504);
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('gives every front code a 4xx status', () => {
    // Prepare
    const front = Object.entries(ERROR_CODES).filter(([, v]) => v.source === 'front');

    // Assess
    expect(front.map(([code]) => code).sort()).toEqual([
      'invalid-cursor',
      'invalid-limit',
      'invalid-seq',
      'not-found',
      'quota-exceeded',
      'request-conflict',
      'request-in-progress',
      'run-not-cancelable',
      'unauthorized',
    ]);
    for (const [code] of front) expect(statusOf(code), code).toBeLessThan(500);
    expect(errorResponse(errorBody(new RequestConflict('requestId "r1"'))).statusCode).toBe(409);
  });

  it('gives every transport code but internal-error a 4xx status', () => {
    // Prepare
    const transport = Object.entries(ERROR_CODES).filter(([, v]) => v.source === 'transport');

    // Assess
    for (const [code] of transport) {
      if (code === 'internal-error') expect(statusOf(code)).toBe(500);
      else expect(statusOf(code), code).toBeLessThan(500);
    }
  });

  it('shows a foreign error only as internal-error, never its text', () => {
    // Act
    const response = errorResponse(errorBody(new Error('secret sk-canary in a stack')));

    // Assess
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('sk-canary');
  });

  it('the HTTP handler answers a throttled store with 503 and Retry-After', async () => {
    // Prepare: the deployment's first store read was throttled past the SDK's retries.
    const handler = createHttpHandler(async () => {
      throw new StoreThrottled('GetItem', new Error('ProvisionedThroughputExceededException'));
    });

    // Act
    const response = await handler(sampleEvent('http/get-session.json'));

    // Assess
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(String(response.body))).toMatchObject({ code: 'store-throttled' });
  });
});
