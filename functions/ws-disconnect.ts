import { connectionsFor } from '../lib/aws/connections.js';
import { observability, withLogging } from '../lib/aws/logging.js';
import { createDisconnectHandler } from '../lib/aws/websocket.js';

const o = observability('ws-disconnect');
const deployment = connectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createDisconnectHandler(deployment, o.logger), {
  tracer: o.tracer,
  span: 'ws-disconnect',
});
