import { AgentKernelError } from '../../core/errors.js';

/** An integration name that discovery does not know (MissingDependency covers absent packages). */
export class IntegrationError extends AgentKernelError {
  constructor(name: string, known: readonly string[]) {
    super(
      'unknown-integration',
      `No integration named "${name}" was found` +
        (known.length ? ` (available: ${known.join(', ')}).` : ' (none is available).'),
    );
  }
}

/** A per-tool native option that the integration sets itself (`ExportOptions.native`). */
export class ReservedToolOption extends AgentKernelError {
  readonly key: string;

  constructor(integration: string, tool: string, key: string) {
    super(
      'reserved-tool-option',
      `Tool option "${key}" of "${tool}" is reserved by the ${integration} integration: it sets that key itself.`,
    );
    this.key = key;
  }
}

/** Socket-level failures of a response already under way (undici's and Node's codes). */
const CUT_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED',
  'ECONNRESET',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/**
 * Whether `err` is a model response cut mid-way: fetch's `TypeError: terminated` (its cause a
 * socket error), or a socket error itself. A tool's own failure never looks like this: tools
 * run between model responses, and their errors reach the model, not the runner.
 */
export function isCutStream(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CUT_CODES.has(code)) return true;
    if (e instanceof TypeError && e.message === 'terminated') return true;
    e = e.cause;
  }
  return false;
}

/** The innermost message of a cut stream ("other side closed"), for the run-error. */
export function describeCut(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++) {
    message = e.message || message;
    e = e.cause;
  }
  return message;
}
