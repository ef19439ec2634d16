import { createApprovalsHandler } from '../lib/aws/handlers/approvals.js';
import { observability, withLogging } from '../lib/aws/middleware/observability.js';
import { messagesFor } from '../lib/aws/wiring/light-deployments.js';

// No `#agents` here: routing a decision reads the table and queues a job (the worker resumes it).
const o = observability('approvals');
const deployment = await messagesFor(['TABLE_NAME', 'RUN_QUEUE_URL'], process.env, o);
export const handler = withLogging(o.logger, createApprovalsHandler(deployment, o));
