import type { DryRunView, TriggerInput, TriggerResource } from './types.ts';
import type { DryRunSignal, HistoryEvent, HistoryPage, HistoryQuery, ListQuery, Page } from './requests.ts';
import { type Call, ifMatch, nextParamOf, queryOf } from './http.ts';

const path = (id: string) => `/api/action-triggers/${encodeURIComponent(id)}`;

/** The client's trigger calls. */
export const triggersApi = (call: Call) => ({
  create: async (t: TriggerInput) => (await call<TriggerResource>('POST', '/api/action-triggers', t)).body,
  get: async (id: string) => (await call<TriggerResource>('GET', path(id))).body,
  list: async (q: ListQuery = {}): Promise<Page> => {
    const { body, res } = await call<TriggerResource[]>('GET', `/api/action-triggers${queryOf(q)}`);
    return { items: body, nextCursor: nextParamOf(res.headers.get('link'), 'cursor') };
  },
  replace: async (id: string, t: TriggerInput, expectedVersion?: number) =>
    (await call<TriggerResource>('PUT', path(id), t, ifMatch(expectedVersion))).body,
  patch: async (id: string, patch: Partial<TriggerInput>, expectedVersion?: number) =>
    (
      await call<TriggerResource>('PATCH', path(id), patch, {
        'content-type': 'application/merge-patch+json',
        ...ifMatch(expectedVersion),
      })
    ).body,
  delete: async (id: string) => {
    await call('DELETE', path(id));
  },
  /** The first page of a trigger's events (at most 100, at most 4 MiB); historyPage goes on from there. */
  history: async (id: string) => (await call<HistoryEvent[]>('GET', `${path(id)}/history`)).body,
  /** The events after version `after` (0: from the start); `nextAfter` when more follow. */
  historyPage: async (id: string, q: HistoryQuery = {}): Promise<HistoryPage> => {
    const { body, res } = await call<HistoryEvent[]>('GET', `${path(id)}/history${queryOf(q)}`);
    const next = nextParamOf(res.headers.get('link'), 'after');
    return { items: body, nextAfter: next === undefined ? undefined : Number(next) };
  },
  /** What a dispatch of the signal would send for the stored trigger; sends nothing (so safe to retry). */
  dryRun: async (id: string, s: DryRunSignal) => (await call<DryRunView>('POST', `${path(id)}/test`, s, {}, true)).body,
  /** The same for a trigger body, checked as on create and never stored. */
  dryRunBody: async (t: TriggerInput, s: DryRunSignal) =>
    (await call<DryRunView>('POST', '/api/action-triggers/test', { ...s, trigger: t }, {}, true)).body,
});
