import { connectionsFor } from '../lib/aws/connections.js';
import { observability, withLogging } from '../lib/aws/logging.js';
import { createConnectHandler } from '../lib/aws/websocket.js';

const o = observability('ws-connect');
const deployment = connectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createConnectHandler(deployment, o.logger), {
  tracer: o.tracer,
  span: 'ws-connect',
});
