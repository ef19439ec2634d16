import { randomInt } from 'node:crypto';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';
import type { Redactor } from '../../tracing/redact.js';
import { activeLogContext } from '../../tracing/span.js';

/**
 * What the handlers write with: the Powertools Logger has it, and so has LambdaJsonLogger.
 * Type-only: naming it imports no Powertools code.
 */
export interface FunctionLogger {
  /** Powertools' threshold numbers (DEBUG 8 … ERROR 20). */
  readonly level: number;
  debug(input: LogItemMessage, ...extra: LogItemExtraInput): void;
  info(input: LogItemMessage, ...extra: LogItemExtraInput): void;
  warn(input: LogItemMessage, ...extra: LogItemExtraInput): void;
  error(input: LogItemMessage, ...extra: LogItemExtraInput): void;
}

/** Powertools' LogLevelThreshold, copied: importing it would load the logger. */
export const THRESHOLDS = {
  TRACE: 6,
  DEBUG: 8,
  INFO: 12,
  WARN: 16,
  ERROR: 20,
  CRITICAL: 24,
  SILENT: 28,
} as const;
type LevelName = keyof typeof THRESHOLDS;
const RESERVED = new Set(['level', 'message', 'sampling_rate', 'service', 'timestamp']);
type Env = Record<string, string | undefined>;

const levelIn = (value: string | undefined): LevelName | undefined =>
  value !== undefined && Object.hasOwn(THRESHOLDS, value) ? (value as LevelName) : undefined;

/**
 * The line the functions' Powertools logger writes (observability.ts KernelLogFormatter: level,
 * message, timestamp, service, Lambda context, X-Ray id, the active span's ids, every field
 * redacted), written without Powertools: its logger and middy are most of what a small function
 * loads at cold start. The level, debug sampling and event logging read the variables Powertools
 * reads, the same way; warnings and errors go to stderr as Powertools' console sends them.
 * test/unit/aws/json-logger.test.ts holds both to the same lines.
 */
export class LambdaJsonLogger implements FunctionLogger {
  #level: number;
  readonly #initial: number;
  readonly #sampleRate: number;
  readonly #logEvent: boolean;
  readonly #indent: number;
  readonly #env: Env;
  #context: Record<string, unknown> | undefined;
  #coldStart: boolean;
  #refreshed = false;

  constructor(
    private readonly service: string,
    private readonly redactor: Redactor,
    env: Env = process.env,
  ) {
    this.#env = env;
    // As Powertools' Utility: only an on-demand sandbox has a cold start to report.
    this.#coldStart = env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
    const alc = env.AWS_LAMBDA_LOG_LEVEL === 'FATAL' ? 'CRITICAL' : env.AWS_LAMBDA_LOG_LEVEL;
    const chosen =
      levelIn(alc) ?? levelIn(env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL || undefined) ?? 'INFO';
    this.#level = this.#initial = THRESHOLDS[chosen];
    const rate = Number(env.POWERTOOLS_LOGGER_SAMPLE_RATE ?? 0);
    this.#sampleRate = rate >= 0 && rate <= 1 ? rate : 0;
    this.#logEvent = env.POWERTOOLS_LOGGER_LOG_EVENT?.toLowerCase() === 'true';
    this.#indent = isDevMode(env) ? 4 : 0;
    if (this.#sampled()) this.#toDebug();
  }

  get level(): number {
    return this.#level;
  }

  debug(input: LogItemMessage, ...extra: LogItemExtraInput): void {
    this.#log('DEBUG', input, extra);
  }

  info(input: LogItemMessage, ...extra: LogItemExtraInput): void {
    this.#log('INFO', input, extra);
  }

  warn(input: LogItemMessage, ...extra: LogItemExtraInput): void {
    this.#log('WARN', input, extra);
  }

  error(input: LogItemMessage, ...extra: LogItemExtraInput): void {
    this.#log('ERROR', input, extra);
  }

  /** As Powertools' injectLambdaContext before each invocation: sampling, context, event. */
  startInvocation(event: unknown, context: Context | undefined): void {
    if (!this.#refreshed) this.#refreshed = true;
    else if (this.#sampled()) this.#toDebug();
    else this.#level = this.#initial;
    this.#context = {
      cold_start: this.#takeColdStart(),
      function_name: context?.functionName,
      function_request_id: context?.awsRequestId,
    };
    if (this.#logEvent) this.info('Lambda invocation event', { event });
  }

  #takeColdStart(): boolean {
    const cold = this.#coldStart;
    this.#coldStart = false;
    return cold;
  }

  #sampled(): boolean {
    return this.#sampleRate > 0 && randomInt(0, 100) / 100 <= this.#sampleRate;
  }

  #toDebug(): void {
    if (this.#level <= THRESHOLDS.TRACE) return;
    this.#level = THRESHOLDS.DEBUG;
    this.debug('Setting log level to DEBUG due to sampling rate');
  }

  #log(level: LevelName, input: LogItemMessage, extra: readonly unknown[]): void {
    if (THRESHOLDS[level] < this.#level) return;
    const additional: Record<string, unknown> = {};
    let message: unknown = input;
    if (typeof input !== 'string') {
      const { message: text, ...rest } = input;
      message = text;
      this.#merge(rest, additional);
    }
    for (const item of extra) {
      if (item === undefined || item === null) continue;
      if (item instanceof Error) additional.error = item;
      else if (typeof item === 'string') additional.extra = item;
      else this.#merge(item as Record<string, unknown>, additional);
    }
    const line = this.redactor.redact({
      level,
      message,
      timestamp: timestampOf(new Date(), this.#env.TZ),
      service: this.service,
      ...this.#context,
      xray_trace_id: xrayTraceId(),
      ...activeLogContext(),
      ...additional,
    }) as Record<string, unknown>;
    const text = `${JSON.stringify(withoutEmpty(line), undefined, this.#indent)}\n`;
    if (THRESHOLDS[level] >= THRESHOLDS.WARN) process.stderr.write(text);
    else process.stdout.write(text);
  }

  #merge(from: Record<string, unknown>, into: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(from)) {
      if (RESERVED.has(key)) this.warn(`The key "${key}" is a reserved key and will be dropped.`);
      else into[key] = value;
    }
  }
}

/** Powertools drops top-level keys that are undefined, empty or null. */
function withoutEmpty(line: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(line)) {
    if (value !== undefined && value !== '' && value !== null) out[key] = value;
  }
  return out;
}

function isDevMode(env: Env): boolean {
  return ['1', 'y', 'yes', 't', 'true', 'on'].includes(env.POWERTOOLS_DEV?.toLowerCase() ?? '');
}

/** The invocation's X-Ray root: the runtime's invoke store, then the per-invocation variable
 * in process.env (not the injected config), as Powertools reads it. */
function xrayTraceId(): string | undefined {
  const store = (
    globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId(): string | undefined } } }
  ).awslambda?.InvokeStore;
  const header = store?.getXRayTraceId() ?? process.env._X_AMZN_TRACE_ID ?? '';
  if (header === '') return undefined;
  if (!header.includes('=')) return header;
  for (const field of header.split(';')) {
    const [key, value] = field.split('=');
    if (key === 'Root') return value;
  }
  return undefined;
}

/** ISO in UTC; under another TZ, local time with its offset (Powertools' LogFormatter). */
function timestampOf(now: Date, tz: string | undefined): string {
  if (!tz || tz.includes('UTC')) return now.toISOString();
  let zone = tz;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    zone = 'UTC';
  }
  const two = '2-digit';
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en', {
    hourCycle: 'h23',
    year: 'numeric',
    month: two,
    day: two,
    hour: two,
    minute: two,
    second: two,
    timeZone: zone,
  });
  for (const part of format.formatToParts(now)) parts[part.type] = part.value;
  const offset = zone === tz ? -now.getTimezoneOffset() : 0;
  const hours = String(Math.abs(Math.floor(offset / 60))).padStart(2, '0');
  const minutes = String(Math.abs(offset % 60)).padStart(2, '0');
  const ms = String(now.getMilliseconds()).padStart(3, '0');
  const { year, month, day, hour, minute, second } = parts;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}${offset >= 0 ? '+' : '-'}${hours}:${minutes}`;
}
