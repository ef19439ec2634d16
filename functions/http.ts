import * as agents from '#agents';
import { createHttpHandler } from '../lib/aws/handlers/http-api.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { deploymentFor } from '../lib/aws/wiring/deployment.js';

const o = observability('http');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createHttpHandler(deployment, o.logger, o), {
  tracer: o.tracer,
  span: 'http',
});
