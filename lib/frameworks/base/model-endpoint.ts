import type { SpanAttributes } from '../../core/tracer.js';

/**
 * Where a model call goes, as span attributes: `serverAddress` (host), `serverPort`, `serverUrl`
 * (OTel `server.address`, `server.port`, `url.full`; X-Ray names the model's remote node by the
 * host and shows an `http` block). Empty when the URL is unknown or not a URL.
 */
export function endpointAttributes(url: string | undefined): SpanAttributes {
  if (!url) return {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const port = parsed.port
    ? Number(parsed.port)
    : parsed.protocol === 'https:'
      ? 443
      : parsed.protocol === 'http:'
        ? 80
        : undefined;
  // Never a query or credentials (an API key in a URL): origin and path only.
  return {
    serverAddress: parsed.hostname,
    ...(port === undefined ? {} : { serverPort: port }),
    serverUrl: `${parsed.origin}${parsed.pathname}`,
  };
}

/**
 * The endpoint of an AI SDK provider model (v2/v3 specification): its providers build request
 * URLs with `config.url({ path, modelId })`; a model without one gives nothing.
 */
export function providerModelEndpoint(model: unknown, path = ''): SpanAttributes {
  const candidate = model as {
    modelId?: unknown;
    config?: { url?: (options: { path: string; modelId: string }) => unknown };
  };
  const url = candidate?.config?.url;
  if (typeof url !== 'function') return {};
  try {
    const value = url.call(candidate.config, { path, modelId: String(candidate.modelId ?? '') });
    return endpointAttributes(typeof value === 'string' ? value : undefined);
  } catch {
    return {};
  }
}
