import * as agents from '#agents';
import { observability, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createMessageHandler } from '../lib/aws/ws-message.js';

const o = observability('ws-message');
const deployment = deploymentFor(agents, ['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withLogging(o.logger, createMessageHandler(deployment, o), {
  tracer: o.tracer,
  span: 'ws-message',
});
