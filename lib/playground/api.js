// What every view shares: the page's configuration, the token, and the HTTP API as any client
// calls it (a bearer token, JSON both ways).

export const TOKEN_KEY = 'agent-kernel.playground.token';

export const config = { httpUrl: '', wsUrl: '' };

export const token = () => localStorage.getItem(TOKEN_KEY) ?? '';

/** One HTTP API call: `{ status, body }`; a network failure throws. */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { authorization: `Bearer ${token()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${config.httpUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await res.json().catch(() => ({}));
  return { status: res.status, body: answer };
}

/** A sentence a person can act on, for an HTTP refusal. */
export function refusal(status, body) {
  if (status === 401 || status === 403) {
    return `The API refused this token (HTTP ${status}). Paste the token \`npm start\` printed (or one your deployment issues).`;
  }
  const detail = body?.message ? `${body.message} (${body.code ?? status})` : `HTTP ${status}`;
  return `The API answered: ${detail}`;
}

export const enc = encodeURIComponent;
