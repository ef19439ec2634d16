import * as agents from '#agents';
import { createStreamHandler } from '../lib/aws/handlers/stream.js';
import { withStreamLogging } from '../lib/aws/middleware/handler-stack.js';
import { observability } from '../lib/aws/middleware/observability.js';
import { streamify } from '../lib/aws/middleware/response-stream.js';
import { deploymentFor } from '../lib/aws/wiring/deployment.js';

const o = observability('stream');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = streamify(
  withStreamLogging(o.logger, createStreamHandler(deployment, o.logger, o)),
);
