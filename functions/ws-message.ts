import * as agents from '#agents';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createMessageHandler } from '../lib/aws/ws-message.js';

const logger = createLogger('ws-message');
export const handler = withLogging(
  logger,
  createMessageHandler(deploymentFor(agents, ['TABLE_NAME', 'RUN_QUEUE_URL']), { logger }),
);
