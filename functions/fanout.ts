import { connectionsFor } from '../lib/aws/connections.js';
import { createFanoutHandler } from '../lib/aws/fanout.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';

const logger = createLogger('fanout');
export const handler = withLogging(logger, createFanoutHandler(connectionsFor(), { logger }));
