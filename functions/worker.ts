import * as agents from '#agents';
import { createWorkerHandler } from '../lib/aws/handlers/worker.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { deploymentFor } from '../lib/aws/wiring/deployment.js';

const o = observability('worker');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createWorkerHandler(deployment, o));
