import * as agents from '#agents';
import { createInvokeHandler } from '../lib/aws/invoke.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const logger = createLogger('invoke');
export const handler = withLogging(logger, createInvokeHandler(deploymentFor(agents), logger));
