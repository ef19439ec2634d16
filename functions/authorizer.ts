import { createAuthorizerHandler } from '../lib/aws/handlers/authorizer.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { loadConfig } from '../lib/aws/wiring/config.js';

const o = observability('authorizer');
export const handler = withLogging(o.logger, createAuthorizerHandler(loadConfig(), o.logger), {
  tracer: o.tracer,
  span: 'authorizer',
});
