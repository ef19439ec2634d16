import { messagesFor } from '../lib/aws/connections.js';
import { observability, withLogging } from '../lib/aws/logging.js';
import { createMessageHandler } from '../lib/aws/ws-message.js';

const o = observability('ws-message');
const deployment = messagesFor(['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withLogging(o.logger, createMessageHandler(deployment, o), {
  tracer: o.tracer,
  span: 'ws-message',
});
