import * as agents from '#agents';
import { observability, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createWorkerHandler } from '../lib/aws/worker.js';

const o = observability('worker');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = withLogging(o.logger, createWorkerHandler(deployment, o));
