import { createFanoutHandler } from '../lib/aws/handlers/fanout.js';
import { withJsonLogging } from '../lib/aws/middleware/json-logging.js';
import { jsonObservability } from '../lib/aws/middleware/json-observability.js';
import { fanoutConnectionsFor } from '../lib/aws/wiring/light-deployments.js';

// Powertools' lines without Powertools or middy: fan-out runs for every batch of streamed events.
const o = await jsonObservability('fanout');
const deployment = await fanoutConnectionsFor(['TABLE_NAME'], process.env, o);
export const handler = withJsonLogging(o.logger, createFanoutHandler(deployment, o));
