/**
 * The delivery side of the one authorization policy (policy.ts): a session's events reach only
 * connections of its owner. Kept free of imports so fan-out's small bundle can use it. A message
 * without an owner comes from a worker older than this rule and is delivered as before.
 */
export function mayReceiveEvents(
  owner: string | undefined,
  principal: string | undefined,
): boolean {
  return owner === undefined || principal === owner;
}
