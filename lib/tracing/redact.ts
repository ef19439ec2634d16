/**
 * One redactor for everything lib/tracing writes (annotations, metadata, error messages, log
 * fields, metric dimensions): sensitive keys, secret-shaped values, literal secrets it was told
 * or has learnt (a tool's sensitive arguments), and explicit sensitive paths.
 */
export const REDACTED = '[REDACTED]';

const SENSITIVE_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'password',
  'passwd',
  'secret',
  'token',
  'cookie',
  'setcookie',
  'credentials',
  'xamzsecuritytoken',
]);
const SENSITIVE_SUFFIXES = [
  'apikey',
  'secret',
  'password',
  'token',
  'privatekey',
  'secretkey',
  'secretaccesskey',
];

const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{12,}/g, // OpenAI / Anthropic style API keys
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bA(?:KIA|SIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
];

/** Secrets shorter than this would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;
/** Our own placeholders: `OPENAI_API_KEY=offline` selects the local stack's offline model. */
const NOT_SECRETS = new Set(['offline']);
const MAX_LEARNT = 1_000;
const MAX_DEPTH = 10;
const MAX_STRING = 4_096;
/** Ids, names and models recur on every span: their redacted form is kept (bounded). */
const MAX_CACHED = 512;
const CACHED_LENGTH = 256;

export interface RedactorOptions {
  /** Extra key names (case, `-` and `_` ignored) whose values are always hidden. */
  readonly keys?: readonly string[];
  readonly patterns?: readonly RegExp[];
  /** Literal secrets known up front (see `secretsFromEnv`). */
  readonly secrets?: readonly string[];
}

export class Redactor {
  readonly #keys: Set<string>;
  readonly #patterns: readonly RegExp[];
  readonly #secrets = new Set<string>();
  /** Longest first, so a secret that contains another is replaced whole. */
  #ordered: string[] = [];
  /** Short strings already redacted; emptied whenever a secret is learnt. */
  readonly #cache = new Map<string, string>();

  constructor(options: RedactorOptions = {}) {
    this.#keys = new Set([...SENSITIVE_KEYS, ...(options.keys ?? []).map(normaliseKey)]);
    this.#patterns = [...SECRET_PATTERNS, ...(options.patterns ?? [])];
    for (const secret of options.secrets ?? []) this.learn(secret);
  }

  /** From now on, `secret` is hidden wherever it appears (bounded: oldest forgotten first). */
  learn(secret: string): void {
    if (secret.length < MIN_SECRET_LENGTH || this.#secrets.has(secret)) return;
    if (this.#secrets.size >= MAX_LEARNT) {
      this.#secrets.delete(this.#secrets.values().next().value ?? '');
    }
    this.#secrets.add(secret);
    this.#ordered = [...this.#secrets].sort((a, b) => b.length - a.length);
    this.#cache.clear();
  }

  isSensitiveKey(key: string): boolean {
    const k = normaliseKey(key);
    return this.#keys.has(k) || SENSITIVE_SUFFIXES.some((suffix) => k.endsWith(suffix));
  }

  /** A string with secret-shaped and known secret values replaced. */
  string(value: string): string {
    if (value.length > CACHED_LENGTH) return this.#redactString(value);
    const cached = this.#cache.get(value);
    if (cached !== undefined) return cached;
    const out = this.#redactString(value);
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
    this.#cache.set(value, out);
    return out;
  }

  #redactString(value: string): string {
    let out = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[truncated]` : value;
    for (const secret of this.#ordered) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    for (const pattern of this.#patterns) {
      pattern.lastIndex = 0;
      if (pattern.test(out)) {
        pattern.lastIndex = 0;
        out = out.replace(pattern, REDACTED);
      }
    }
    return out;
  }

  /**
   * A JSON-safe, redacted copy of `value`. Values at `sensitive` paths (dotted, `*` matches any
   * key or index) are hidden and learnt, so an echo of them elsewhere is hidden too.
   */
  redact(value: unknown, sensitive: readonly string[] = []): unknown {
    const paths = sensitive.map((path) => path.split('.'));
    return this.#walk(value, [], paths, 0, new WeakSet());
  }

  /** Learns the values at `sensitive` paths without copying anything. */
  learnPaths(value: unknown, sensitive: readonly string[]): void {
    if (sensitive.length > 0) this.redact(value, sensitive);
  }

  #walk(
    value: unknown,
    path: string[],
    paths: readonly string[][],
    depth: number,
    seen: WeakSet<object>,
  ): unknown {
    if (paths.length > 0 && paths.some((p) => matches(p, path))) {
      this.#learnValue(value);
      return REDACTED;
    }
    if (typeof value === 'string') return this.string(value);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (typeof value === 'bigint') return value.toString();
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      return undefined;
    }
    if (value instanceof Error) {
      return { name: value.name, message: this.string(value.message) };
    }
    if (value instanceof Date) return value.toISOString();
    const object = value as object;
    if (seen.has(object)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated]';
    seen.add(object);
    if (Array.isArray(object)) {
      return object.map((item, i) =>
        this.#walk(item, [...path, String(i)], paths, depth + 1, seen),
      );
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(object)) {
      if (this.isSensitiveKey(key)) {
        if (typeof child === 'string') this.learn(child);
        out[key] = REDACTED;
        continue;
      }
      const next = this.#walk(child, [...path, key], paths, depth + 1, seen);
      if (next !== undefined) out[key] = next;
    }
    return out;
  }

  #learnValue(value: unknown): void {
    if (typeof value === 'string' || typeof value === 'number') this.learn(String(value));
    else if (value && typeof value === 'object') {
      for (const child of Object.values(value)) this.#learnValue(child);
    }
  }
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => segment === '*' || segment === path[i]);
}

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_.\s]/g, '');
}

/** Values of environment variables that hold secrets (API keys, AWS credentials, tokens). */
export function secretsFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  const probe = new Redactor();
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        value &&
        value.length >= MIN_SECRET_LENGTH &&
        !NOT_SECRETS.has(value) &&
        probe.isSensitiveKey(name),
    )
    .map(([, value]) => value as string);
}
