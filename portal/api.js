// The portal's one door to Kolli: the public API, with the key or token kept for this browser
// session only (sessionStorage).

const STORE = 'kolli.session';

/** { token, customerNr, keyId? } or null. */
export function session() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE) ?? 'null');
  } catch {
    return null;
  }
}

export function setSession(value) {
  if (value) sessionStorage.setItem(STORE, JSON.stringify(value));
  else sessionStorage.removeItem(STORE);
}

/** A failed call: status, the problem (or text) answered, and its `errors` by field. */
export class ApiError extends Error {
  constructor(status, body) {
    const detail = typeof body === 'string' ? body : (body?.detail ?? body?.title ?? `HTTP ${status}`);
    super(detail);
    this.status = status;
    this.body = body;
    this.errors = (typeof body === 'object' && body?.errors) || {};
  }
}

async function parse(res) {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) return res.json();
  return res.text();
}

/** Calls the API; JSON in and out. `raw` answers the Response (PDF, ZPL). */
export async function api(path, { method = 'GET', body, query, raw = false, token, headers: extra } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
  }
  const headers = { ...extra, authorization: `Bearer ${token ?? session()?.token ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new ApiError(res.status, await parse(res));
  if (raw) return res;
  return res.status === 204 ? null : parse(res);
}

/** Exchanges a key id and key for an access token (OAuth password grant). */
export async function token(keyId, key) {
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: keyId, password: key }),
  });
  const body = await parse(res);
  if (!res.ok) throw new ApiError(res.status, body?.error_description ?? body?.error ?? body);
  return body.access_token;
}
