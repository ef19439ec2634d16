import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { OtlpExportFailed } from './errors.js';
import { encodeTraceRequest } from './otlp-json.js';
import { type PostAnswer, SocketPoster } from './otlp-socket.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
/** `ExportResultCode` of @opentelemetry/core (not a dependency of ours). */
const SUCCESS = 0;
const FAILED = 1;

export interface OtlpHttpExporterOptions {
  /** The traces URL (`…/v1/traces`), http or https. */
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** Upper bound of one export, retry included. */
  readonly timeoutMillis?: number;
}

/**
 * OTLP/HTTP JSON span exporter: one POST per batch, the body encoded in one pass
 * (`encodeTraceRequest`) and written at once with its length, on a kept-alive socket
 * (`SocketPoster` for http:, a keep-alive agent for https:). A socket
 * the collector closed while the sandbox was frozen fails on reuse (ECONNRESET): that export is
 * sent once more on a new one, within the same deadline. No other retry: tracing never holds
 * an answer back for long, and a failed batch is dropped.
 */
export class OtlpHttpExporter implements SpanExporter {
  readonly #options: RequestOptions;
  readonly #headers: Record<string, string>;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  readonly #timeoutMs: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** http: (a collector beside the function, ADOT's): node:http's own cost was most of an export. */
  readonly #socket: SocketPoster | undefined;
  #shutDown = false;

  constructor(options: OtlpHttpExporterOptions) {
    const url = new URL(options.url);
    const https = url.protocol === 'https:';
    if (!https && url.protocol !== 'http:') {
      throw new TypeError(`OTLP/HTTP endpoint must be http or https: ${options.url}`);
    }
    this.#agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.#request = https ? httpsRequest : httpRequest;
    this.#options = { ...urlToHttpOptions(url), method: 'POST', agent: this.#agent };
    this.#headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'agent-kernel-lambda',
      ...options.headers,
    };
    this.#timeoutMs = options.timeoutMillis ?? 10_000;
    this.#socket = https ? undefined : new SocketPoster(url, this.#headers, this.#timeoutMs);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.#shutDown) {
      done({ code: FAILED, error: new Error('OTLP exporter is shut down') });
      return;
    }
    let body: string;
    try {
      body = encodeTraceRequest(spans);
    } catch (error) {
      done({ code: FAILED, error: error as Error });
      return;
    }
    const sent = (
      this.#socket
        ? this.#socket.post(body).then(answered, (error: Error) => ({ code: FAILED, error }))
        : this.#post(Buffer.from(body, 'utf8'), Date.now() + this.#timeoutMs, true)
    ).then(done);
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.#inFlight]);
  }

  async shutdown(): Promise<void> {
    this.#shutDown = true;
    await this.forceFlush();
    this.#agent.destroy();
    this.#socket?.close();
  }

  #post(body: Buffer, deadline: number, mayRetry: boolean): Promise<ExportResult> {
    return new Promise((resolve) => {
      const headers = { ...this.#headers, 'Content-Length': String(body.length) };
      const req = this.#request({ ...this.#options, headers }, (res) => {
        const status = res.statusCode ?? 0;
        // The start of a refusal's body says why (auth, quota, schema); the rest is drained.
        let why = '';
        if (status >= 200 && status < 300) res.resume();
        else {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (why.length < 200) why += chunk;
          });
        }
        res.on('error', (error) => {
          clearTimeout(timer);
          resolve({ code: FAILED, error });
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve(answered({ status, why }));
        });
      });
      const timer = setTimeout(
        () => {
          req.destroy(new OtlpExportFailed(`no answer within ${this.#timeoutMs} ms`));
        },
        Math.max(deadline - Date.now(), 0),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const stale = mayRetry && req.reusedSocket && error.code === 'ECONNRESET';
        if (stale && Date.now() < deadline) resolve(this.#post(body, deadline, false));
        else resolve({ code: FAILED, error });
      });
      req.end(body);
    });
  }
}

function answered({ status, why }: PostAnswer): ExportResult {
  if (status >= 200 && status < 300) return { code: SUCCESS };
  return { code: FAILED, error: new OtlpExportFailed(`collector answered ${status} ${why}`) };
}
