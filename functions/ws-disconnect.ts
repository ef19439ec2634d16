import * as agents from '#agents';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createDisconnectHandler } from '../lib/aws/websocket.js';

const logger = createLogger('ws-disconnect');
export const handler = withLogging(logger, createDisconnectHandler(deploymentFor(agents), logger));
