import { EventStore, StoredEvent } from '../event-store/port';
import { MAX_LIST_PAGE_BYTES } from '../kernel/limits';
import { boundedPage, PAGE_READ_CHUNK } from '../kernel/bounded-page';
import { streamOf } from '../model/triggers/events';

/** One stored trigger event as the API shows it (history and the audit feed): as stored, nothing added. */
export const historyEntry = (e: StoredEvent) => ({
  type: e.type,
  version: Number(e.revision) + 1,
  data: e.data,
  metadata: e.metadata,
});

export interface HistoryPage {
  /** Each event's JSON (historyEntry), oldest first. */
  readonly items: readonly string[];
  /** The version of the last event on the page, when more events follow it. */
  readonly nextAfter: number | undefined;
}

/**
 * Up to `limit` of a trigger's events after version `after`, oldest first, stopping before the
 * page's JSON would pass `maxBytes` (always at least one event). Also after deletion.
 */
export const historyPage = async (
  store: EventStore,
  triggerId: string,
  after: number,
  limit: number,
  maxBytes = MAX_LIST_PAGE_BYTES,
): Promise<HistoryPage> => {
  const page = boundedPage(maxBytes);
  // Version v is revision v - 1: the first event after version `after` is revision `after`.
  let from = BigInt(after);
  for (;;) {
    // One more than the page takes, to know whether more follow.
    const maxCount = Math.min(limit - page.items.length + 1, PAGE_READ_CHUNK);
    const events = await store.read(streamOf(triggerId), { fromRevision: from, maxCount });
    for (const e of events) {
      // The page ends before `e`: the last version on it is e's revision.
      if (page.items.length === limit || !page.add(JSON.stringify(historyEntry(e))))
        return { items: page.items, nextAfter: Number(e.revision) };
    }
    if (events.length < maxCount) return { items: page.items, nextAfter: undefined };
    from += BigInt(events.length);
  }
};

/** Whether the trigger has any event (also once deleted): its newest one, read alone. */
export const hasHistory = async (store: EventStore, triggerId: string) =>
  (await store.read(streamOf(triggerId), { direction: 'backwards', maxCount: 1 })).length > 0;
