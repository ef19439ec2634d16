import * as agents from '#agents';
import { createApprovalsHandler } from '../lib/aws/approvals.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const logger = createLogger('approvals');
export const handler = withLogging(
  logger,
  createApprovalsHandler(deploymentFor(agents, ['TABLE_NAME', 'RUN_QUEUE_URL']), { logger }),
);
