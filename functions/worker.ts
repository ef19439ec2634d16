import * as agents from '#agents';
import { createWorkerHandler } from '../lib/aws/handlers/worker.js';
import { withJsonLogging } from '../lib/aws/middleware/json-logging.js';
import { jsonObservability } from '../lib/aws/middleware/json-observability.js';
import { deploymentFor } from '../lib/aws/wiring/deployment.js';

// Powertools' lines without Powertools or middy: the worker runs every turn.
const o = await jsonObservability('worker');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withJsonLogging(o.logger, createWorkerHandler(deployment, o));
