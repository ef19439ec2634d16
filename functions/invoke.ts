import * as agents from '#agents';
import { createInvokeHandler } from '../lib/aws/handlers/invoke.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { deploymentFor } from '../lib/aws/wiring/deployment.js';

const o = observability('invoke');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createInvokeHandler(deployment, o.logger, o), {
  tracer: o.tracer,
  span: 'invoke',
});
