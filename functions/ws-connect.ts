import { createConnectHandler } from '../lib/aws/handlers/ws-connection.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { connectionsFor } from '../lib/aws/wiring/light-deployments.js';

const o = observability('ws-connect');
const deployment = await connectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createConnectHandler(deployment, o.logger), {
  tracer: o.tracer,
  span: 'ws-connect',
});
