import { EventStore, StoredEvent } from '../event-store/port';
import { MAX_LIST_PAGE_BYTES } from '../limits';
import { streamOf } from './events';

/** One stored trigger event as the API shows it (history and the audit feed): as stored, nothing added. */
export const historyEntry = (e: StoredEvent) => ({
  type: e.type,
  version: Number(e.revision) + 1,
  data: e.data,
  metadata: e.metadata,
});

/**
 * Events read from the store at a time while a page fills: the page stops at MAX_LIST_PAGE_BYTES,
 * so a read of `limit` events (up to 1,000 of up to a definition's size each) would hold far more
 * than it sends.
 */
export const HISTORY_READ_CHUNK = 32;

export interface HistoryPage {
  /** Each event's JSON (historyEntry), oldest first. */
  readonly items: string[];
  /** The version of the last event on the page, when more events follow it. */
  readonly nextAfter: number | undefined;
}

/**
 * Up to `limit` of a trigger's events after version `after`, oldest first, stopping before the
 * page's JSON would pass `maxBytes` (always at least one event). Also after deletion.
 */
export const historyPage = async (store: EventStore, triggerId: string, after: number, limit: number,
  maxBytes = MAX_LIST_PAGE_BYTES): Promise<HistoryPage> => {
  const items: string[] = [];
  let bytes = 2;
  // Version v is revision v - 1: the first event after version `after` is revision `after`.
  let from = BigInt(after);
  for (;;) {
    // One more than the page takes, to know whether more follow.
    const maxCount = Math.min(limit - items.length + 1, HISTORY_READ_CHUNK);
    const events = await store.read(streamOf(triggerId), { fromRevision: from, maxCount });
    for (const e of events) {
      // The page ends before `e`: the last version on it is e's revision.
      if (items.length === limit) return { items, nextAfter: Number(e.revision) };
      const json = JSON.stringify(historyEntry(e));
      bytes += Buffer.byteLength(json) + (items.length > 0 ? 1 : 0);
      if (items.length > 0 && bytes > maxBytes) return { items, nextAfter: Number(e.revision) };
      items.push(json);
    }
    if (events.length < maxCount) return { items, nextAfter: undefined };
    from += BigInt(events.length);
  }
};

/** Whether the trigger has any event (also once deleted): its newest one, read alone. */
export const hasHistory = async (store: EventStore, triggerId: string) =>
  (await store.read(streamOf(triggerId), { direction: 'backwards', maxCount: 1 })).length > 0;
