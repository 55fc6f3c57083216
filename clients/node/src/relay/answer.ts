import { retryAfterMs } from './retry-after.ts';

/** What one request's answer means for its rows. */
export type Answer =
  | { kind: 'accepted' }
  /** The service refused the batch (all or nothing): `items` names the rows at fault by index, when it says. */
  | { kind: 'refused'; status: number; items: Map<number, string>; reason: string }
  /** Not the rows' fault: they stay to be sent again later. */
  | { kind: 'unavailable'; reason: string; retryAfterMs?: number };

const RETRYABLE = new Set([408, 425, 429]);
const ITEM = /^\[(\d+)\]\.?/;

interface Problem {
  title?: string;
  detail?: string;
  errors?: Array<{ path?: unknown; message?: unknown }>;
}

const unavailableFor = (status: number, url: string, problem: string) => {
  if (status === 401) return `the service refused the API key (${problem}): set apiKey (ACTION_TRIGGERS_API_KEY) to one of its keys`;
  if (status === 403) return `the API key may not send signals (${problem}): give it the scope signals:write`;
  if (status === 404 || status === 405) return `no action-triggers service at ${url} (${problem}): check url (ACTION_TRIGGERS_URL)`;
  return `${problem}: not the service's refusal (not problem+json: a proxy?)`;
};

const isServiceProblem = (res: Response) => (res.headers.get('content-type') ?? '').split(';')[0]!.trim() === 'application/problem+json';

/** Whether a 2xx body is the service's answer: one entry per signal sent, in order, by id, each saying whether it was a duplicate. */
const answersEach = (body: unknown, ids: ReadonlyArray<string | null>) =>
  Array.isArray(body) &&
  body.length === ids.length &&
  body.every((a, i) => typeof a === 'object' && a !== null && a.id === ids[i] && typeof a.duplicate === 'boolean');

const itemErrors = (problem: Problem, count: number, head: string) => {
  const found = new Map<number, string[]>();
  for (const e of Array.isArray(problem.errors) ? problem.errors : []) {
    const m = typeof e.path === 'string' ? ITEM.exec(e.path) : null;
    if (!m || Number(m[1]) >= count) continue;
    const i = Number(m[1]);
    found.set(i, [...(found.get(i) ?? []), `${(e.path as string).slice(m[0].length) || '(signal)'}: ${String(e.message)}`]);
  }
  return new Map([...found].map(([i, messages]) => [i, `${head}: ${messages.join('; ')}`]));
};

/** Reads an answer to `POST /api/signals` with the signals `ids` (in the order sent). */
export const readAnswer = async (res: Response, ids: ReadonlyArray<string | null>, url: string): Promise<Answer> => {
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get('location');
    return {
      kind: 'unavailable',
      reason: `${url} answered ${res.status}, a redirect${location ? ` to ${location}` : ''}; redirects are never followed (the API key would go along): set url to the final address`,
    };
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok)
    return answersEach(body, ids)
      ? { kind: 'accepted' }
      : {
          kind: 'unavailable',
          reason: `${url} answered ${res.status} with something other than the service's answer: a proxy or another server?`,
        };
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Problem;
  const head = `${res.status} ${problem.title ?? ''}`.trim();
  const said = [head, problem.detail].filter(Boolean).join(': ');
  if (res.status >= 500 || RETRYABLE.has(res.status) || [401, 403, 404, 405].includes(res.status) || !isServiceProblem(res)) {
    const wait = retryAfterMs(res.headers.get('retry-after'));
    const reason = res.status >= 500 || RETRYABLE.has(res.status) ? said : unavailableFor(res.status, url, said);
    return wait === undefined ? { kind: 'unavailable', reason } : { kind: 'unavailable', reason, retryAfterMs: wait };
  }
  return { kind: 'refused', status: res.status, items: itemErrors(problem, ids.length, head), reason: said };
};
