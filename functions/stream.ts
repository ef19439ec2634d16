import * as agents from '#agents';
import { observability } from '../lib/aws/logging.js';
import { withStreamLogging } from '../lib/aws/middleware.js';
import { streamify } from '../lib/aws/response-stream.js';
import { deploymentFor } from '../lib/aws/runtime.js';
import { createStreamHandler } from '../lib/aws/stream-http.js';

const o = observability('stream');
const deployment = deploymentFor(agents, ['TABLE_NAME'], process.env, o);
export const handler = streamify(
  withStreamLogging(o.logger, createStreamHandler(deployment, o.logger, o)),
);
