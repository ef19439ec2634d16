import type { Connection, Subscription } from '../../app/ports/connections.js';
import {
  BAD,
  type Check,
  type Issue,
  int,
  oneOfValues,
  optional,
  strictObject,
  string,
} from '../../transport/hand-check.js';

/**
 * The connection store's items checked by hand, as ConnectionSchema (app/ports/connections.ts)
 * extended for each item would check them: the fan-out reads subscriptions on every batch and
 * bundles no zod. test/unit/stores/connection-items.test.ts keeps both in step.
 */

const connectionFields = {
  connectionId: string({ min: 1, max: 256 }),
  principal: optional(string()),
  endpoint: string({ min: 1 }),
  connectedAt: int(),
};

const stringSet: Check = (value, path, issues) => {
  if (value instanceof Set) return value;
  issues.push({ path, message: 'must be a set' });
  return BAD;
};

const ConnectionItem = strictObject(connectionFields);
const ConnItem = strictObject({ ...connectionFields, sessions: optional(stringSet) });
const SubItem = strictObject({
  ...connectionFields,
  sessionId: string(),
  format: oneOfValues('native', 'ag-ui'),
});

/** The checked value, or the first issue's words (`path: message`). */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

function run<T>(check: Check, value: unknown): Checked<T> {
  const issues: Issue[] = [];
  const checked = check(value, [], issues);
  if (checked !== BAD) return { ok: true, value: checked as T };
  const first = issues[0];
  const at = first?.path.map(String).join('.');
  return { ok: false, message: first ? `${at ? `${at}: ` : ''}${first.message}` : 'invalid' };
}

export const checkConnection = (value: unknown) => run<Connection>(ConnectionItem, value);
export const checkConnItem = (value: unknown) =>
  run<Connection & { sessions?: Set<unknown> }>(ConnItem, value);
export const checkSubItem = (value: unknown) => run<Subscription>(SubItem, value);
