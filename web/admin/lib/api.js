// The public HTTP API, with the caller's key. The key lives in sessionStorage only (never in a
// URL, never in localStorage): it goes when the browser session ends.

const KEY = 'action-triggers-api-key';

/** An answer that was not 2xx; `problem` is the RFC 9457 body when there was one. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem ?? {};
  }

  /** `[{path, message}]` from a validation problem, else []. */
  get fieldErrors() {
    return Array.isArray(this.problem.errors) ? this.problem.errors : [];
  }
}

let askForKey = async () => undefined;
/** How the page asks for a key (../app.js sets a dialog); resolves to the key or undefined. */
export const setKeyPrompt = (prompt) => {
  askForKey = prompt;
};
export const storedKey = () => sessionStorage.getItem(KEY) ?? undefined;
export const forgetKey = () => sessionStorage.removeItem(KEY);

const headersOf = (body, ifMatch) => {
  const headers = { Accept: 'application/json, application/problem+json' };
  const key = storedKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (ifMatch) headers['If-Match'] = ifMatch;
  return headers;
};

/**
 * Calls the API: `api('GET', '/api/action-triggers', { query: { limit: 50 } })`.
 * Resolves to `{ status, body, etag, link }`; rejects with ApiError. A 401 asks for a key once
 * and tries again with it.
 */
export async function api(method, path, { body, query, ifMatch } = {}, retried = false) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  const res = await fetch(url, { method, headers: headersOf(body, ifMatch), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.status === 401 && !retried) {
    const key = await askForKey(storedKey() ? 'That API key was not accepted. Enter another.' : 'This service needs an API key.');
    if (key) {
      sessionStorage.setItem(KEY, key);
      return api(method, path, { body, query, ifMatch }, true);
    }
  }
  if (!res.ok) throw new ApiError(res.status, parsed);
  return { status: res.status, body: parsed, etag: res.headers.get('ETag') ?? undefined, link: res.headers.get('Link') ?? undefined };
}

/** The cursor of a `Link: <…?cursor=x>; rel="next"` header (or its `param`), or undefined. */
export function nextCursor(link, param = 'cursor') {
  const m = /<([^>]*)>;\s*rel="next"/.exec(link ?? '');
  return m ? (new URL(m[1], location.origin).searchParams.get(param) ?? undefined) : undefined;
}

/** The admin's settings (Temporal UI address, namespace), public. */
export const adminConfig = () => fetch('./config.json').then((r) => r.json());
