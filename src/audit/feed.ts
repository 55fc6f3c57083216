import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { Checkpoint, EventStore, StoredEvent, TRIGGER_STREAM_PREFIX } from '../event-store/port';
import { historyEntry } from '../triggers/history';
import { sendError } from '../http/problem';
import { sendJson } from '../http/request';
import { MAX_LIST_PAGE_BYTES } from '../kernel/limits';
import { boundedPage, PAGE_READ_CHUNK } from '../kernel/bounded-page';
import { parseFeedQuery } from './feed-query';

/** One feed event: the history view plus where it belongs (trigger id) and where it is (position, a decimal string). */
export const feedEvent = (e: StoredEvent) => ({
  position: e.position.toString(),
  trigger_id: e.streamId.slice(TRIGGER_STREAM_PREFIX.length),
  ...historyEntry(e),
});

export interface FeedPage {
  /** Each event's JSON (feedEvent), in position order. */
  readonly items: readonly string[];
  /** The position of the last event on the page; undefined when it is empty. */
  readonly last: bigint | undefined;
  /** Full: `limit` events, or cut by bytes (the next event did not fit). More may follow at once. */
  readonly full: boolean;
}

/**
 * Up to `limit` trigger events after `after`, stopping before the page's JSON would pass
 * `maxBytes` (always at least one): read PAGE_READ_CHUNK at a time, so a page of large
 * definitions holds at most one chunk more than it sends. The rest comes on the next page,
 * since `next` is the last position included.
 */
export const feedPage = async (store: EventStore, after: Checkpoint, limit: number, maxBytes = MAX_LIST_PAGE_BYTES): Promise<FeedPage> => {
  const page = boundedPage(maxBytes);
  let last: bigint | undefined;
  let from = after;
  while (page.items.length < limit) {
    const maxCount = Math.min(limit - page.items.length, PAGE_READ_CHUNK);
    const events = await store.readCategory('action_trigger', from, maxCount);
    for (const e of events) {
      if (!page.add(JSON.stringify(feedEvent(e)))) return { items: page.items, last, full: true };
      last = e.position;
    }
    if (events.length < maxCount || last === undefined) return { items: page.items, last, full: false };
    from = last;
  }
  return { items: page.items, last, full: true };
};

/**
 * `GET /api/events?after=&limit=`: every trigger event of every trigger, in store order.
 * `next` is the position to ask `after` next: the last one on this page, or the `after`
 * given when nothing follows yet (null from the start of an empty store). A client that
 * always resumes from `next` sees every event exactly once. `Link: rel="next"` when the
 * page is full (more may follow at once).
 */
export const listEvents = (store: EventStore) => async (req: Request, res: Response) => {
  const query = parseFeedQuery(req.query, true);
  if (E.isLeft(query)) return sendError(res, { _tag: 'Validation', errors: query.left });
  const { after, limit } = query.right;
  const page = await feedPage(store, after, limit);
  const next = page.last ?? (after === 'start' ? null : after);
  if (next !== null && page.full) {
    res.set('Link', `<${req.baseUrl}${req.path}?after=${next.toString()}&limit=${limit}>; rel="next"`);
  }
  sendJson(res, 200, `{"events":[${page.items.join(',')}],"next":${next === null ? 'null' : `"${next.toString()}"`}}`);
};
