/** Sending a request to the service: redirects refused, idempotent calls retried, problem+json answers thrown. */

/** A problem+json answer; `errors` names each bad field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: Array<{ path: string; message: string }> },
  ) {
    super(`${status} ${problem.title ?? ''}: ${problem.detail ?? ''}`.trim());
    this.name = 'ApiError';
  }
}

/**
 * The service's address answered with a redirect. Redirects are never followed: the API key would
 * go along to wherever they point (and a POST would become a GET). Put the final address in `baseUrl`.
 */
export class RedirectRefused extends Error {
  constructor(
    readonly status: number,
    readonly location: string | null,
  ) {
    super(
      `the service answered ${status}, a redirect${location ? ` to ${location}` : ''}; redirects are not followed (the API key would go along): set baseUrl to the final address`,
    );
    this.name = 'RedirectRefused';
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Attempts for idempotent calls (GET, PUT, DELETE, and signals with their fixed ids). Default 4. */
  attempts?: number;
  fetch?: typeof fetch;
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

/** One request and its parsed answer; `retry` (default: all but POST and PATCH) on a lost connection or a RETRYABLE status. */
export type Call = <T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  retry?: boolean,
) => Promise<{ body: T; res: Response }>;

export const caller = (options: ClientOptions): Call => {
  const base = options.baseUrl.replace(/\/$/, '');
  const doFetch = options.fetch ?? fetch;
  const attempts = options.attempts ?? 4;
  return async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    retry = method !== 'POST' && method !== 'PATCH',
  ) => {
    for (let attempt = 1; ; attempt++) {
      let res: Response | undefined;
      try {
        res = await doFetch(`${base}${path}`, {
          method,
          redirect: 'manual',
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (e) {
        if (!retry || attempt >= attempts) throw e;
      }
      if (res && res.status >= 300 && res.status < 400) throw new RedirectRefused(res.status, res.headers.get('location'));
      if (res && (res.ok || !retry || !RETRYABLE.has(res.status) || attempt >= attempts)) {
        const text = await res.text();
        const parsed = text ? JSON.parse(text) : undefined;
        if (!res.ok) throw new ApiError(res.status, parsed ?? {});
        return { body: parsed as T, res };
      }
      await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 1)));
    }
  };
};

export const ifMatch = (version?: number): Record<string, string> => (version === undefined ? {} : { 'if-match': `"${version}"` });

/** The `param` of the Link header's next page, or undefined on the last page. */
export const nextParamOf = (link: string | null, param: string) => {
  const m = link && new RegExp(`<[^>]*[?&]${param}=([^&>]+)[^>]*>;\\s*rel="next"`).exec(link);
  return m ? decodeURIComponent(m[1]!) : undefined;
};

/** `?name=value&…` of the query's fields that are set, or nothing. */
export const queryOf = (q: object) => {
  const params = new URLSearchParams(
    Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  );
  return params.size ? `?${params}` : '';
};
