import { createFanoutHandler } from '../lib/aws/handlers/fanout.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { fanoutConnectionsFor } from '../lib/aws/wiring/light-deployments.js';

const o = observability('fanout');
const deployment = fanoutConnectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createFanoutHandler(deployment, o));
