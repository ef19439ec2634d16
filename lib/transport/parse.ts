import * as z from 'zod/mini';
import {
  article,
  clip,
  describeList,
  fail,
  type Gated,
  gateRaw,
  gateValue,
  issueLine,
  MAX_INBOUND_BYTES,
  oneOf,
  type ParseOptions,
  type ParseResult,
  quote,
  type RawMessage,
} from './gate.js';
import { CLIENT_ACTIONS, type ClientMessage, ClientMessageSchema } from './protocol.js';
import { TOO_LARGE_ISSUE } from './sizing.js';

export {
  GATE_FORBIDDEN_KEYS,
  MAX_JSON_DEPTH,
  type ParseOptions,
  type ParseResult,
  type RawMessage,
} from './gate.js';

/**
 * Checks one WebSocket frame from a client. Never throws: a bad frame becomes the `error`
 * message to send back, echoing the frame's requestId when it had a valid one.
 */
export function parseInbound(
  raw: RawMessage,
  options: ParseOptions = {},
): ParseResult<ClientMessage> {
  return parseMessage(ClientMessageSchema, raw, { ...options, actions: CLIENT_ACTIONS });
}

/**
 * The one input gate of every front (WebSocket frames, HTTP and SSE bodies, AG-UI, queue bodies;
 * invoke payloads through checkMessage). In order: size (`too-large`), UTF-8 (`invalid-utf8`),
 * JSON (`bad-json`), an object (`invalid-message`), depth (`too-deep`), prototype keys
 * (`forbidden-key`), with `actions` the action (`unknown-action`), then the strict schema
 * (`invalid-message`, or `too-large` for a size limit inside it). Never throws.
 */
export function parseMessage<S extends z.core.$ZodType>(
  schema: S,
  raw: RawMessage,
  options: ParseOptions & { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  return checkSchema(schema, gateRaw(raw, options));
}

/**
 * Checks an already parsed value (a Lambda invoke payload, say) the way parseMessage does,
 * its size measured as the JSON it would be.
 */
export function checkMessage<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  options: ParseOptions & { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  const maxBytes = options.maxBytes ?? MAX_INBOUND_BYTES;
  return checkSchema(schema, gateValue(value, options.actions, maxBytes));
}

/** The strict schema, on what passed the gate. */
function checkSchema<S extends z.core.$ZodType>(schema: S, gated: Gated): ParseResult<z.infer<S>> {
  if (!gated.ok) return gated.error;
  const { value } = gated;
  const parsed = z.safeParse(schema, value, { error: defaultMessage });
  if (parsed.success) return { ok: true, message: parsed.data };
  const { issues } = parsed.error;
  const sized = issues.filter(isSizeIssue);
  if (sized.length > 0) return fail('too-large', describeIssues(sized), value);
  return fail('invalid-message', describeIssues(issues), value);
}

/** A size limit inside the schema (a run input over 96 KB). */
function isSizeIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.gate === TOO_LARGE_ISSUE.gate;
}

/** `path: message` for the first issues, e.g. `input.0.text: must not be empty`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return describeList(issues, describeIssue);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') {
    const inner = unionDetail(issue);
    if (inner !== undefined) return inner;
  }
  return issueLine(issue.path, plainMessage(issue.message));
}

/**
 * A union names no field. Options of another type, or whose tag (`type`, `kind`) differs, say
 * nothing about what the sender meant: the closest remaining option does (an array input with
 * too many items, an image request without its url).
 */
function unionDetail(issue: z.core.$ZodIssueInvalidUnion): string | undefined {
  const at = (suffix: readonly PropertyKey[]) =>
    [...issue.path, ...suffix].map((p) => clip(String(p))).join('.');
  const plausible = issue.errors.filter((branch) => branch.length > 0 && !isMismatch(branch));
  if (plausible.length > 0) {
    const closest = plausible.reduce((a, b) => (b.length < a.length ? b : a));
    return describeIssues(closest.map((i) => ({ ...i, path: [...issue.path, ...i.path] })));
  }
  const tag = tagValues(issue.errors);
  if (tag !== undefined) {
    return `${at([tag.key])}: must be ${oneOf([...new Set(tag.values)])}`;
  }
  const types = rootTypes(issue.errors);
  if (types?.received === 'undefined') return `${at([])}: is required`;
  if (types?.expected.size === 1)
    return `${at([])}: must be ${article([...types.expected][0] ?? '')}`;
  return undefined;
}

/** The option is of another type or has another tag than the value. */
function isMismatch(branch: readonly z.core.$ZodIssue[]): boolean {
  const [first] = branch;
  if (branch.length === 1 && first?.code === 'invalid_union' && first.path.length === 0) {
    return first.errors.every(isMismatch);
  }
  return branch.some(
    (i) =>
      (i.code === 'invalid_type' && i.path.length === 0) ||
      (i.code === 'invalid_value' && i.path.length === 1),
  );
}

/** When no option had the value's type: the types they expected. */
function rootTypes(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): { expected: Set<string>; received: string | undefined } | undefined {
  const expected = new Set<string>();
  let received: string | undefined;
  for (const branch of branches) {
    const root = branch.find((i) => i.code === 'invalid_type' && i.path.length === 0);
    const nested =
      branch.length === 1 && branch[0]?.code === 'invalid_union' ? branch[0] : undefined;
    if (root?.code === 'invalid_type') {
      expected.add(root.expected);
      received = /( received undefined|^is required)$/.test(root.message) ? 'undefined' : 'other';
    } else if (nested?.code === 'invalid_union' && nested.path.length === 0) {
      const inner = rootTypes(nested.errors);
      if (inner === undefined) return undefined;
      for (const e of inner.expected) expected.add(e);
      received = inner.received;
    } else {
      return undefined;
    }
  }
  return { expected, received };
}

/** When every option failed on the same tag field (`type`), the values that field may take. */
function tagValues(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): { key: PropertyKey; values: unknown[] } | undefined {
  let key: PropertyKey | undefined;
  const values: unknown[] = [];
  for (const branch of branches) {
    const literal = branch.find((i) => i.code === 'invalid_value' && i.path.length === 1);
    const nested =
      branch.length === 1 && branch[0]?.code === 'invalid_union' ? branch[0] : undefined;
    const found =
      literal?.code === 'invalid_value'
        ? { key: literal.path[0] as PropertyKey, values: literal.values }
        : nested?.code === 'invalid_union' && nested.path.length === 0
          ? tagValues(nested.errors)
          : undefined;
    if (found === undefined || (key !== undefined && found.key !== key)) return undefined;
    key = found.key;
    values.push(...found.values);
  }
  return key === undefined ? undefined : { key, values };
}

/** Issues inside a union keep zod's defaults: say them the way defaultMessage does. */
function plainMessage(message: string): string {
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (type) return type[2] === 'undefined' ? 'is required' : `must be ${article(type[1] ?? '')}`;
  const keys = /^Unrecognized keys?: (.*)$/.exec(message);
  if (keys) return `unknown field${message.startsWith('Unrecognized keys') ? 's' : ''} ${keys[1]}`;
  return message;
}

/** Readable defaults for issues whose schema has no message of its own. */
function defaultMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => quote(clip(k))).join(', ');
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${keys}`;
    }
    case 'invalid_value':
      return `must be ${oneOf(issue.values)}`;
    case 'too_small':
      if (issue.origin === 'string') {
        return issue.minimum === 1
          ? 'must not be empty'
          : `must have at least ${issue.minimum} characters`;
      }
      if (issue.origin === 'array') return `must have at least ${issue.minimum} items`;
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must have at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      return `must be at most ${issue.maximum}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'invalid_union': {
      // A discriminated union names the values its key may take.
      const options = (issue as { options?: unknown[] }).options;
      return options ? `must be ${oneOf(options)}` : 'does not match any allowed shape';
    }
    default:
      return undefined;
  }
}
