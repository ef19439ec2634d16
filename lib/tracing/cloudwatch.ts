import { CloudWatchBackend, type CloudWatchTracerOptions } from './cloudwatch-backend.js';
import { tracingConfigFromEnv } from './config.js';

export { CloudWatchBackend, type CloudWatchTracerOptions };

/**
 * The CloudWatch backend (cloudwatch-backend.ts) with its configuration read and checked here:
 * `tracingConfigFromEnv(env)`, the fields of `options.config` winning.
 */
export class CloudWatchTracer extends CloudWatchBackend {
  constructor(options: CloudWatchTracerOptions = {}) {
    const env = options.env ?? process.env;
    super(options, tracingConfigFromEnv(env, { backend: 'cloudwatch', ...options.config }));
  }
}
