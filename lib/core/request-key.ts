import { createHash } from 'node:crypto';
import { canonicalJson } from './model-step.js';

/**
 * The journal key of a model request whose history grows step by step, without hashing the whole
 * history again at every step: a hash chain over the history's items, `c₀ = ''`,
 * `cᵢ = sha256(cᵢ₋₁ ‖ canonical(itemᵢ))`, and the key `scope:h:sha256(canonical(rest) ‖ cₙ)`.
 * A pure function of the request's content, so every attempt (any process) computes the same
 * key; what makes it cheap is a per-process memo of `cᵢ` by the item *object* and `cᵢ₋₁`: an
 * item object a framework hands back at the next step (its history is appended to, not rebuilt)
 * costs a lookup, only new items are serialised and hashed.
 *
 * Items are taken as immutable once hashed (frameworks append new items rather than edit old
 * ones); `project` picks what of an item decides the answer (run on a memo miss only).
 */
export function historyRequestKey<T>(
  scope: string,
  rest: unknown,
  history: readonly T[],
  project: (item: T) => unknown = (item) => item,
): string {
  let chain = '';
  for (const item of history) chain = link(chain, item, project);
  const hash = createHash('sha256').update(canonicalJson(rest)).update('\n').update(chain);
  return `${scope}:h:${hash.digest('hex')}`;
}

/** Per item object: the chain value it gave after a given previous value (most recent only). */
const memo = new WeakMap<object, { readonly after: string; readonly chain: string }>();

function link<T>(previous: string, item: T, project: (item: T) => unknown): string {
  const keyed = typeof item === 'object' && item !== null;
  if (keyed) {
    const known = memo.get(item);
    if (known && known.after === previous) return known.chain;
  }
  const chain = createHash('sha256')
    .update(previous)
    .update('\n')
    .update(canonicalJson(project(item)))
    .digest('hex');
  if (keyed) memo.set(item, { after: previous, chain });
  return chain;
}
