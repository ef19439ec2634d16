import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano?: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: KeyValue[] }[];
}

/** An OTLP/HTTP (JSON) traces receiver on 127.0.0.1: keeps every request's bytes. */
export async function startOtlpReceiver() {
  const requests: OtlpRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Every received span, or those sent to paths starting with `path`. */
    spans: (path = '') =>
      requests.filter((r) => r.path.startsWith(path)).flatMap((r) => decode(r.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decode(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as {
    resourceSpans: {
      resource: { attributes: KeyValue[] };
      scopeSpans: {
        spans: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes: KeyValue[] })[];
      }[];
    }[];
  };
  return parsed.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((span) => ({
        ...span,
        attributes: flat(span.attributes),
        resource: flat(rs.resource.attributes),
      })),
    ),
  );
}

function flat(list: KeyValue[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue;
  }
  return out;
}
