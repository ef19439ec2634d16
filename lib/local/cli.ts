/**
 * What the local commands (`npm start`, `invoke`, `approve`, `integration-map`) share: a failure
 * prints one line and a hint, never a stack trace (AGENT_KERNEL_DEBUG=1 shows it), and the exit
 * code says it failed.
 */
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentKernelError } from '../core/errors.js';

/** A failure the user can act on: what went wrong, and what to do about it. */
export class CliError extends AgentKernelError {
  readonly hint: string;

  constructor(code: string, message: string, hint: string) {
    super(code, message);
    this.hint = hint;
  }
}

/** The command line itself is wrong (an unknown flag, a missing argument): exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, usage: string) {
    super('invalid-argument', message, usage);
  }
}

/** A file the command was told to read is not there. */
export function fileMissing(what: string, path: string, hint: string): CliError {
  return new CliError('file-missing', `${what} not found: ${path}`, hint);
}

/** Whether the error (or its cause) is a refused or unanswered connection. */
export function isUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH') return true;
    if (e instanceof AggregateError && e.errors.some(isUnreachable)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The one line and the hint for any thrown value. */
export function explain(err: unknown): { message: string; hint?: string } {
  if (err instanceof UsageError) return { message: `${err.message} (${err.code})`, hint: err.hint };
  if (err instanceof CliError) return { message: err.message, hint: err.hint };
  const hint = (err as { hint?: unknown } | undefined)?.hint;
  const message = err instanceof Error ? err.message || err.name : String(err);
  const firstLine = message.split('\n')[0] as string;
  if (err instanceof AgentKernelError) {
    return {
      message: `${firstLine} (${err.code})`,
      hint:
        typeof hint === 'string'
          ? hint
          : err.code === 'agents-entry-error'
            ? 'docs/agents.md describes what an agents module exports.'
            : undefined,
    };
  }
  const located = syntaxError(message) ?? missingModule(message);
  if (located) return located;
  return { message: firstLine, hint: typeof hint === 'string' ? hint : hintFor(err) };
}

/** esbuild's (tsx's) "Transform failed" keeps the location on its second line: show it. */
function syntaxError(message: string): { message: string; hint: string } | undefined {
  const found = /^Transform failed with \d+ errors?:\n(.+?):(\d+):(\d+): ERROR: (.+)/.exec(message);
  if (!found) return undefined;
  const [, file, line, column, text] = found;
  return {
    message: `syntax error in ${file}:${line}:${column}: ${text}`,
    hint: `fix line ${line}, column ${column} of ${file}, then run the command again.`,
  };
}

/** A CommonJS require's "Cannot find module" names its importer in the require stack. */
function missingModule(message: string): { message: string; hint: string } | undefined {
  const found = /^Cannot find module '([^']+)'\nRequire stack:\n- (.+)/.exec(message);
  if (!found || /^[./]/.test(found[1] as string)) return undefined;
  const [, specifier, file] = found as unknown as [string, string, string];
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : (specifier.split('/')[0] as string);
  return {
    message: `Cannot find package '${name}' imported from ${file}`,
    hint: `install it in that file's project (npm install ${name} in ${dirname(file)}), or add "type": "module" to its package.json so this clone's packages are found too.`,
  };
}

/** What to do about the common system errors; else how to see more. */
function hintFor(err: unknown): string {
  if ((err as { code?: unknown } | undefined)?.code === 'EADDRINUSE') {
    return 'another process holds that port: stop it, or set PORT (PORT=0 picks a free one).';
  }
  if (isUnreachable(err)) return 'nothing answers there: is the emulator (or `npm start`) running?';
  return 'AGENT_KERNEL_DEBUG=1 prints the stack trace.';
}

/** Prints the failure as `error: …` and `hint: …` on stderr. */
export function report(err: unknown): void {
  const { message, hint } = explain(err);
  process.stderr.write(`error: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
  if (process.env.AGENT_KERNEL_DEBUG && err instanceof Error && err.stack) {
    process.stderr.write(`${err.stack}\n`);
  }
}

/** Runs a command's body: its exit code, or the failure reported in one line and exit code 1. */
export async function runCommand(body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = (await body()) ?? 0;
  } catch (err) {
    report(err);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
}

/** The options a command takes, as `node:util` parseArgs reads them (`--help`/`-h` is added). */
export type FlagOptions = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/**
 * `node:util` parseArgs, strict: an unknown flag, a missing value or a stray positional is a
 * CliError `invalid-argument` naming it, with the usage as its hint. `--help` prints the usage
 * on stdout and answers undefined: the command then exits 0.
 */
export function parseFlags<O extends NonNullable<FlagOptions>>(
  argv: readonly string[],
  options: O,
  usage: string,
  positionals = true,
) {
  const config = {
    args: [...argv],
    options: { ...options, help: { type: 'boolean', short: 'h' } } as O & {
      help: { type: 'boolean'; short: 'h' };
    },
    allowPositionals: positionals,
    strict: true,
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    // Node's first sentence names the flag; the rest is advice about `--` few users need.
    const message = (err as Error).message.split(/\. (?=To specify)/)[0] as string;
    throw new UsageError(message.replace(/^Unknown option/, 'unknown option'), usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  return parsed;
}
