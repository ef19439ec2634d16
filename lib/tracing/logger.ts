import type { LogLevel } from './config.js';
import type { Redactor } from './redact.js';

/** The ids that tie a log line to its request, run and trace. */
export interface LogContext {
  readonly requestId?: string;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly agent?: string;
  readonly traceId?: string;
}

/** Where lines go: stdout on Lambda (CloudWatch Logs), an array in tests. */
export type LineSink = (line: string) => void;

export const stdoutSink: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};

/**
 * Where the tracer's own lines go. `JsonLogger` by default; on Lambda the function's Powertools
 * logger (lib/aws/middleware/observability.ts), so a function writes one line format.
 */
export interface LogPort {
  /**
   * Set by a port that writes `log`'s `carried` fields (JsonLogger, lib/aws's): the tracer then
   * puts a run's metrics in its run line. A port without it gets them on a line of their own.
   */
  readonly carries?: boolean;
  enabled(level: LogLevel): boolean;
  /**
   * `context`: the ids of the span the line is about (they win over the active span's).
   * `carried`: fields already redacted (a run's EMF metrics), written as they are.
   */
  log(
    level: LogLevel,
    message: string,
    fields?: Record<string, unknown>,
    context?: LogContext,
    carried?: Record<string, unknown>,
  ): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * JSON lines with the ids of the active span on every one (requestId, sessionId, runId, agent,
 * traceId), every field through the redactor.
 */
export class JsonLogger implements LogPort {
  readonly carries = true;
  readonly #sink: LineSink;
  readonly #level: number;
  readonly #redactor: Redactor;
  readonly #context: () => LogContext | undefined;

  constructor(options: {
    sink: LineSink;
    level: LogLevel;
    redactor: Redactor;
    context: () => LogContext | undefined;
  }) {
    this.#sink = options.sink;
    this.#level = RANK[options.level];
    this.#redactor = options.redactor;
    this.#context = options.context;
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.#level;
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.log('debug', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.log('info', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.log('warn', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.log('error', message, fields);
  }

  /** `context` overrides the active span's ids (the tracer passes the ending span's). */
  log(
    level: LogLevel,
    message: string,
    fields?: Record<string, unknown>,
    context?: LogContext,
    carried?: Record<string, unknown>,
  ): void {
    if (RANK[level] < this.#level) return;
    const ids = context ?? this.#context() ?? {};
    const safe = fields ? (this.#redactor.redact(fields) as Record<string, unknown>) : {};
    const line = {
      // Caller fields first: they may not overwrite the level, time or the ids.
      ...carried,
      ...safe,
      level,
      timestamp: new Date().toISOString(),
      message: this.#redactor.string(message),
      ...definedOnly(ids),
    };
    this.#sink(JSON.stringify(line));
  }
}

function definedOnly(ids: LogContext): LogContext {
  const out: Record<string, string> = {};
  for (const key in ids) {
    const value = ids[key as keyof LogContext];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
