import * as agents from '#agents';
import { createHttpHandler } from '../lib/aws/http.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const logger = createLogger('http');
export const handler = withLogging(logger, createHttpHandler(deploymentFor(agents), logger));
