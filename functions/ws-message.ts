import { createMessageHandler } from '../lib/aws/handlers/ws-message.js';
import { withJsonLogging } from '../lib/aws/middleware/json-logging.js';
import { jsonObservability } from '../lib/aws/middleware/json-observability.js';
import { messagesFor } from '../lib/aws/wiring/light-deployments.js';

// Powertools' lines without Powertools or middy: every WebSocket message goes through here.
const o = await jsonObservability('ws-message');
const deployment = await messagesFor(['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withJsonLogging(o.logger, createMessageHandler(deployment, o), {
  tracer: o.tracer,
  span: 'ws-message',
});
