import * as agents from '#agents';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createWorkerHandler } from '../lib/aws/worker.js';

const logger = createLogger('worker');
export const handler = withLogging(logger, createWorkerHandler(deploymentFor(agents), { logger }));
