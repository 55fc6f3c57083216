/**
 * A small typed client for services that manage triggers and emit signals.
 * Signals get their id here, before the first attempt, so a retry after a lost response can
 * never start a second dispatch.
 */
import { v7 as uuidv7 } from 'uuid';
import type { DeliveriesCancelled, DispatchView, DryRunView, TriggerInput, TriggerResource } from './types';

export type * from './types';

export interface Signal {
  id?: string;
  signal: 'pre_save' | 'post_save' | 'pre_delete' | 'post_delete';
  app_label: string;
  model_name: string;
  instance: Record<string, unknown>;
  /** The instance before the change: what transition conditions (`$changed`) compare with. */
  previous?: Record<string, unknown>;
  occurred_at?: string;
  instance_key?: string;
}
/** What a dry run renders: the signal without a content type (default: the trigger's first). */
export type DryRunSignal = Omit<Signal, 'app_label' | 'model_name'> & Partial<Pick<Signal, 'app_label' | 'model_name'>>;
export interface Accepted {
  id: string;
  workflow_id: string;
  duplicate: boolean;
}
export interface RedeliveryAsk {
  mode: 'as_dispatched' | 'current';
  delivery_ids?: string[];
}
export interface RedeliveryQueued {
  id: string;
  workflow_id: string;
  redelivery_of: string;
  number: number;
  mode: string;
  delivery_ids: string[];
  state: 'queued';
}
export interface RedeliveredFailed {
  redelivered: number;
  skipped: { busy: number; nothing_left: number; not_stored: number };
  truncated: boolean;
}
export interface ListQuery {
  active?: boolean;
  signal?: string;
  app_label?: string;
  model_name?: string;
  limit?: number;
  cursor?: string;
}
export interface Page {
  items: TriggerResource[];
  nextCursor: string | undefined;
}
export interface HistoryEvent {
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}
export interface HistoryQuery {
  after?: number;
  limit?: number;
}
export interface HistoryPage {
  items: HistoryEvent[];
  nextAfter: number | undefined;
}

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

export const createClient = (options: ClientOptions) => {
  const base = options.baseUrl.replace(/\/$/, '');
  const doFetch = options.fetch ?? fetch;
  const attempts = options.attempts ?? 4;

  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    retry = method !== 'POST' && method !== 'PATCH',
  ): Promise<{ body: T; res: Response }> => {
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
  const ifMatch = (version?: number): Record<string, string> => (version === undefined ? {} : { 'if-match': `"${version}"` });
  const nextParamOf = (link: string | null, param: string) => {
    const m = link && new RegExp(`<[^>]*[?&]${param}=([^&>]+)[^>]*>;\\s*rel="next"`).exec(link);
    return m ? decodeURIComponent(m[1]!) : undefined;
  };
  const nextCursorOf = (link: string | null) => nextParamOf(link, 'cursor');

  return {
    triggers: {
      create: async (t: TriggerInput) => (await call<TriggerResource>('POST', '/api/action-triggers', t)).body,
      get: async (id: string) => (await call<TriggerResource>('GET', `/api/action-triggers/${encodeURIComponent(id)}`)).body,
      list: async (q: ListQuery = {}): Promise<Page> => {
        const params = new URLSearchParams(
          Object.entries(q)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]): [string, string] => [k, String(v)]),
        );
        const { body, res } = await call<TriggerResource[]>('GET', `/api/action-triggers${params.size ? `?${params}` : ''}`);
        return { items: body, nextCursor: nextCursorOf(res.headers.get('link')) };
      },
      replace: async (id: string, t: TriggerInput, expectedVersion?: number) =>
        (await call<TriggerResource>('PUT', `/api/action-triggers/${encodeURIComponent(id)}`, t, ifMatch(expectedVersion))).body,
      patch: async (id: string, patch: Partial<TriggerInput>, expectedVersion?: number) =>
        (
          await call<TriggerResource>('PATCH', `/api/action-triggers/${encodeURIComponent(id)}`, patch, {
            'content-type': 'application/merge-patch+json',
            ...ifMatch(expectedVersion),
          })
        ).body,
      delete: async (id: string) => {
        await call('DELETE', `/api/action-triggers/${encodeURIComponent(id)}`);
      },
      /** The first page of a trigger's events (at most 100, at most 4 MiB); historyPage goes on from there. */
      history: async (id: string) => (await call<HistoryEvent[]>('GET', `/api/action-triggers/${encodeURIComponent(id)}/history`)).body,
      /** The events after version `after` (0: from the start); `nextAfter` when more follow. */
      historyPage: async (id: string, q: HistoryQuery = {}): Promise<HistoryPage> => {
        const params = new URLSearchParams(
          Object.entries(q)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]): [string, string] => [k, String(v)]),
        );
        const { body, res } = await call<HistoryEvent[]>(
          'GET',
          `/api/action-triggers/${encodeURIComponent(id)}/history${params.size ? `?${params}` : ''}`,
        );
        const next = nextParamOf(res.headers.get('link'), 'after');
        return { items: body, nextAfter: next === undefined ? undefined : Number(next) };
      },
      /** What a dispatch of the signal would send for the stored trigger; sends nothing (so safe to retry). */
      dryRun: async (id: string, s: DryRunSignal) =>
        (await call<DryRunView>('POST', `/api/action-triggers/${encodeURIComponent(id)}/test`, s, {}, true)).body,
      /** The same for a trigger body, checked as on create and never stored. */
      dryRunBody: async (t: TriggerInput, s: DryRunSignal) =>
        (await call<DryRunView>('POST', '/api/action-triggers/test', { ...s, trigger: t }, {}, true)).body,
    },
    signals: {
      /** Emits one signal; safe to retry because the id is fixed before the first attempt. */
      emit: async (s: Signal): Promise<Accepted> =>
        (await call<Accepted>('POST', '/api/signals', { ...s, id: s.id ?? uuidv7() }, {}, true)).body,
      emitMany: async (signals: Signal[]): Promise<Accepted[]> =>
        (
          await call<Accepted[]>(
            'POST',
            '/api/signals',
            signals.map((s) => ({ ...s, id: s.id ?? uuidv7() })),
            {},
            true,
          )
        ).body,
      status: async (id: string) => (await call<DispatchView>('GET', `/api/signals/${encodeURIComponent(id)}`)).body,
      /** Not retried: a lost answer and a second ask would be a second redelivery (or a 409 while the first runs). */
      redeliver: async (id: string, ask: RedeliveryAsk) =>
        (await call<RedeliveryQueued>('POST', `/api/signals/${encodeURIComponent(id)}/redeliver`, ask)).body,
      redelivery: async (id: string, n: number) =>
        (await call<DispatchView>('GET', `/api/signals/${encodeURIComponent(id)}/redeliveries/${n}`)).body,
      /**
       * Cancels the signal's pending deliveries (all, or `deliveryIds`). Not retried: after a lost
       * answer a second ask finds them cancelled already (a 409).
       */
      cancel: async (id: string, deliveryIds?: string[]) =>
        (
          await call<DeliveriesCancelled>(
            'POST',
            `/api/signals/${encodeURIComponent(id)}/cancel`,
            deliveryIds ? { delivery_ids: deliveryIds } : {},
          )
        ).body,
      redeliverFailed: async (triggerId: string, since: Date) =>
        (
          await call<RedeliveredFailed>('POST', `/api/action-triggers/${encodeURIComponent(triggerId)}/redeliver-failed`, {
            since: since.toISOString(),
          })
        ).body,
    },
  };
};

export type ActionTriggersClient = ReturnType<typeof createClient>;
