import * as agents from '#agents';
import { createApprovalsHandler } from '../lib/aws/approvals.js';
import { observability, withLogging } from '../lib/aws/logging.js';
import { deploymentFor } from '../lib/aws/runtime.js';

const o = observability('approvals');
const deployment = deploymentFor(agents, ['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withLogging(o.logger, createApprovalsHandler(deployment, o));
