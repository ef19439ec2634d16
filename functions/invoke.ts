import * as agents from '#agents';
import { createInvokeHandler } from '../lib/aws/invoke.js';
import { observability, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const o = observability('invoke');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createInvokeHandler(deployment, o.logger, o), {
  tracer: o.tracer,
  span: 'invoke',
});
