import { connectionsFor } from '../lib/aws/connections.js';
import { createLogger, withLogging } from '../lib/aws/logging.js';
import { createDisconnectHandler } from '../lib/aws/websocket.js';

const logger = createLogger('ws-disconnect');
export const handler = withLogging(logger, createDisconnectHandler(connectionsFor(), logger));
