import { createMessageHandler } from '../lib/aws/handlers/ws-message.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { messagesFor } from '../lib/aws/wiring/light-deployments.js';

const o = observability('ws-message');
const deployment = messagesFor(['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withLogging(o.logger, createMessageHandler(deployment, o), {
  tracer: o.tracer,
  span: 'ws-message',
});
