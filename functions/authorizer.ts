import { createAuthorizerHandler } from '../lib/aws/authorizer.js';
import { loadConfig } from '../lib/aws/config.js';
import { observability, withLogging } from '../lib/aws/logging.js';

const o = observability('authorizer');
export const handler = withLogging(o.logger, createAuthorizerHandler(loadConfig(), o.logger), {
  tracer: o.tracer,
  span: 'authorizer',
});
