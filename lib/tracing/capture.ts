import { traceChild } from '../core/tracer.js';

/** The parts of an AWS SDK v3 client that capturing needs (no SDK import in this folder's API). */
export interface CapturableClient {
  readonly middlewareStack: {
    // `unknown`: a method's parameter is compared both ways, so every client's overloaded `add`
    // fits without naming the SDK's middleware types here.
    add(middleware: unknown, options: { step: 'build'; name: string; override?: boolean }): void;
  };
  readonly config?: { region?: unknown };
}

interface HandlerContext {
  readonly clientName?: string;
  readonly commandName?: string;
}

type Next = (args: { request?: unknown }) => Promise<{ output?: unknown; response?: unknown }>;

/**
 * Every call of `client` becomes an `aws` span (an X-Ray `aws` subsegment named after the
 * service, with operation, region and request id) under the active span, and carries the trace
 * header to the service. Retries happen inside one span. Returns the same client.
 */
export function captureClient<T extends CapturableClient>(client: T): T {
  const middleware =
    (next: Next, context: HandlerContext) => async (args: { request?: unknown }) => {
      const service = (context.clientName ?? 'AWS').replace(/Client$/, '');
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      return traceChild(service, 'aws', { awsOperation: operation }, async (span) => {
        const request = args.request as { headers?: Record<string, string> } | undefined;
        const header = span.traceHeader();
        if (header && request?.headers) request.headers['X-Amzn-Trace-Id'] = header;
        const region = await regionOf(client);
        if (region) span.setAttributes({ awsRegion: region });
        try {
          const result = await next(args);
          const output = result.output as { $metadata?: unknown } | undefined;
          span.setAttributes(metadataOf(output?.$metadata));
          return result;
        } catch (err) {
          span.setAttributes(metadataOf((err as { $metadata?: unknown }).$metadata));
          throw err;
        }
      });
    };
  client.middlewareStack.add(middleware, {
    step: 'build',
    name: 'agentKernelTracing',
    override: true,
  });
  return client;
}

async function regionOf(client: CapturableClient): Promise<string | undefined> {
  try {
    const region = client.config?.region;
    const value = typeof region === 'function' ? await region() : region;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function metadataOf(metadata: unknown): Record<string, string | number | undefined> {
  const m = (metadata ?? {}) as { requestId?: string; attempts?: number; httpStatusCode?: number };
  return {
    awsRequestId: m.requestId,
    awsRetries: typeof m.attempts === 'number' ? m.attempts - 1 : undefined,
    httpStatus: m.httpStatusCode,
  };
}
