import { createServer, request, type Server } from 'node:http';

/** One SendMessageBatch entry as the proxy sees it. */
export interface BatchEntry {
  Id: string;
  MessageBody: string;
  MessageDeduplicationId?: string;
  MessageGroupId?: string;
}

/** Answers true for an entry SQS should report as failed (an internal error). */
export type EntryRule = (entry: BatchEntry) => boolean;

export interface SqsProxy {
  /** Point an SQS client here instead of at the emulator. */
  readonly url: string;
  /** Every SendMessageBatch entry, in arrival order, with whether it was failed. */
  readonly entries: (BatchEntry & { failed: boolean })[];
  /** Operations by name (`SendMessage`, `SendMessageBatch`, …), in arrival order. */
  readonly operations: string[];
  setRule(rule: EntryRule | undefined): void;
  close(): Promise<void>;
}

/**
 * A small HTTP proxy in front of local-aws-sqs (the SDK's JSON protocol) that fails chosen
 * entries of a SendMessageBatch as SQS does: the others are sent, the chosen ones are left out
 * of the forwarded request and come back in the 200 answer's `Failed` (`InternalError`,
 * `SenderFault: false`). Everything else passes through untouched.
 */
export async function startSqsProxy(target: string): Promise<SqsProxy> {
  const upstream = new URL(target);
  const entries: SqsProxy['entries'] = [];
  const operations: string[] = [];
  let rule: EntryRule | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.slice(target.indexOf('.') + 1);
      operations.push(operation);
      let failed: BatchEntry[] = [];
      if (operation === 'SendMessageBatch') {
        const input = JSON.parse(body.toString('utf8')) as { Entries: BatchEntry[] };
        const kept: BatchEntry[] = [];
        for (const entry of input.Entries) {
          const fail = rule?.(entry) ?? false;
          entries.push({ ...entry, failed: fail });
          (fail ? failed : kept).push(entry);
        }
        if (kept.length === 0) {
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify({ Successful: [], Failed: failedOf(failed) }));
          return;
        }
        body = Buffer.from(JSON.stringify({ ...input, Entries: kept }));
      } else failed = [];
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            let text = Buffer.concat(parts);
            if (failed.length > 0 && answer.statusCode === 200) {
              const out = JSON.parse(text.toString('utf8'));
              out.Failed = [...(out.Failed ?? []), ...failedOf(failed)];
              text = Buffer.from(JSON.stringify(out));
            }
            const outHeaders = { ...answer.headers, 'content-length': String(text.length) };
            res.writeHead(answer.statusCode ?? 500, outHeaders).end(text);
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    entries,
    operations,
    setRule: (next) => {
      rule = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function failedOf(entries: BatchEntry[]) {
  return entries.map((e) => ({
    Id: e.Id,
    SenderFault: false,
    Code: 'InternalError',
    Message: 'We encountered an internal error. Please try again.',
  }));
}

/** A rule that fails each matching entry the first `times` times it is seen. */
export function failEntriesTimes(match: EntryRule, times = 1): EntryRule {
  const seen = new Map<string, number>();
  return (entry) => {
    if (!match(entry)) return false;
    const key = entry.MessageDeduplicationId ?? entry.MessageBody;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return n < times;
  };
}
