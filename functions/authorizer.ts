import { createAuthorizerHandler } from '../lib/aws/authorizer.js';
import { loadConfig } from '../lib/aws/config.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';

const logger = createLogger('authorizer');
export const handler = withLogging(logger, createAuthorizerHandler(loadConfig(), logger));
