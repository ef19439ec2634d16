// Deep links: the view is in the URL's hash, so a reload (or a shared link) opens it again.

const decode = (part) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
};

/** `#/sessions/<id>/runs/<runId>` → `{ view, sessionId, runId }`. */
export function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decode);
  if (parts.some((p) => p === undefined)) return { view: 'missing' };
  const [root, sessionId, runs, runId] = parts;
  if (parts.length === 0) return { view: 'chat' };
  if (root === 'sessions' && parts.length === 1) return { view: 'sessions' };
  if (root === 'sessions' && parts.length === 2) return { view: 'session', sessionId };
  if (root === 'sessions' && runs === 'runs' && parts.length === 4) {
    return { view: 'run', sessionId, runId };
  }
  if (root === 'usage' && parts.length === 1) return { view: 'usage' };
  if (root === 'approvals' && parts.length === 1) return { view: 'inbox' };
  return { view: 'missing' };
}

export const links = {
  chat: '#/',
  sessions: '#/sessions',
  usage: '#/usage',
  inbox: '#/approvals',
  session: (sessionId) => `#/sessions/${encodeURIComponent(sessionId)}`,
  run: (sessionId, runId) =>
    `#/sessions/${encodeURIComponent(sessionId)}/runs/${encodeURIComponent(runId)}`,
};
