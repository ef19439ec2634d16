import { connectionsFor } from '../lib/aws/connections.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { createConnectHandler } from '../lib/aws/websocket.js';

const logger = createLogger('ws-connect');
export const handler = withLogging(logger, createConnectHandler(connectionsFor(), logger));
