import * as agents from '#agents';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createConnectHandler } from '../lib/aws/websocket.js';

const logger = createLogger('ws-connect');
export const handler = withLogging(logger, createConnectHandler(deploymentFor(agents), logger));
