import * as agents from '#agents';
import { createFanoutHandler } from '../lib/aws/fanout.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const logger = createLogger('fanout');
export const handler = withLogging(logger, createFanoutHandler(deploymentFor(agents), { logger }));
