/**
 * The one owner rule, used by the core (turns, resumes, clears), the front door (lib/app/policy.ts)
 * and delivery (fan-out, lib/aws/adapters/post-to-session.ts) alike. Free of imports so fan-out's small bundle can use
 * it. A session belongs to the principal that created it; one without an owner belongs to no
 * principal (only to principal-less use of the Runtime as a library, where both are undefined).
 */
export function isOwner(owner: string | undefined, principal: string | undefined): boolean {
  return owner === principal;
}

/** What binds an item kept under a session (a run record, a paused run) to one life of it. */
export interface Binding {
  readonly owner?: string | undefined;
  readonly incarnation?: string | undefined;
}

/**
 * Whether `item` belongs to the session as it is now: the same incarnation (a random id minted
 * when the session is created: a clear, an expiry or another claim makes a new one) and the same
 * owner. Items and sessions from before incarnations existed carry none: they match each other
 * only, so nothing of theirs reaches a session created since.
 */
export function boundTo(item: Binding, session: Binding | undefined): boolean {
  if (session === undefined) return false;
  return (
    item.incarnation === session.incarnation && isOwner(item.owner ?? session.owner, session.owner)
  );
}

/** The binding to stamp on what a session's current life writes. */
export function bindingOf(session: Binding): { owner?: string; incarnation?: string } {
  return {
    ...(session.owner === undefined ? {} : { owner: session.owner }),
    ...(session.incarnation === undefined ? {} : { incarnation: session.incarnation }),
  };
}
