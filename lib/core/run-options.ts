import { ReservedRunOption } from './errors.js';
import type { Request } from './requests.js';

/** Options passed through to the framework's own run call (e.g. `maxTurns`). */
export type RunOptions = Readonly<Record<string, unknown>>;

export interface RunOptionsContext {
  readonly runId: string;
  readonly sessionId: string;
  readonly agent: string;
  readonly requests: readonly Request[];
  readonly principal?: string;
}

/** Computes per-run options; its result is merged over the agent's static declaration. */
export type RunOptionsFactory = (ctx: RunOptionsContext) => RunOptions | Promise<RunOptions>;

/** Keys a runner sets itself, each with the one-line reason shown to whoever tries to set it. */
export type ReservedRunOptions = Readonly<Record<string, string>>;

/** A runner's own check of nested keys (`Runner.validateRunOptions`); throws `ReservedRunOption`. */
export type RunOptionsValidator = (options: RunOptions) => void;

export function assertNoReservedKeys(
  runner: string,
  reserved: ReservedRunOptions,
  options: RunOptions | undefined,
  validate?: RunOptionsValidator,
): void {
  if (!options) return;
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(reserved, key)) {
      throw new ReservedRunOption(runner, key, reserved[key] as string);
    }
  }
  validate?.(options);
}

/**
 * The run options a runner hands its framework: without its reserved keys, so a runner called
 * directly (past the runtime's checks) still keeps what it owns. No copy when none is present.
 */
export function ownOptions(options: RunOptions, reserved: ReservedRunOptions): RunOptions {
  if (!Object.keys(options).some((key) => Object.hasOwn(reserved, key))) return options;
  return Object.fromEntries(
    Object.entries(options).filter(([key]) => !Object.hasOwn(reserved, key)),
  );
}

/**
 * Resolved once per run: static declaration, then the factory, then the caller's per-call options;
 * later layers win key by key.
 */
export async function resolveRunOptions(
  runner: {
    readonly name: string;
    readonly reservedRunOptions: ReservedRunOptions;
    validateRunOptions?: RunOptionsValidator;
  },
  declared: RunOptions | undefined,
  factory: RunOptionsFactory | undefined,
  perCall: RunOptions | undefined,
  ctx: RunOptionsContext,
): Promise<RunOptions> {
  const fromFactory = factory ? await factory(ctx) : undefined;
  const validate = runner.validateRunOptions?.bind(runner);
  assertNoReservedKeys(runner.name, runner.reservedRunOptions, fromFactory, validate);
  assertNoReservedKeys(runner.name, runner.reservedRunOptions, perCall, validate);
  if (!fromFactory && !perCall) return declared ?? {};
  return { ...declared, ...fromFactory, ...perCall };
}
