import { connectionsFor } from '../lib/aws/connections.js';
import { createFanoutHandler } from '../lib/aws/fanout.js';
import { observability, withLogging } from '../lib/aws/logging.js';

const o = observability('fanout');
const deployment = connectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createFanoutHandler(deployment, o));
