import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { Category, Checkpoint, EventStore, StoredEvent, TRIGGER_STREAM_PREFIX } from '../event-store/port';
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

/** What a feed serves: one category of the store, each event as it shows it (undefined: not shown, passed over). */
export interface FeedSource {
  readonly category: Category;
  /** The JSON key of a page's items, and what the live stream's first comment calls the feed. */
  readonly items: string;
  readonly title: string;
  readonly entry: (e: StoredEvent) => { type: string; body: Record<string, unknown> } | undefined;
}

/** The audit feed: every trigger event. */
export const TRIGGER_EVENTS: FeedSource = {
  category: 'action_trigger',
  items: 'events',
  title: 'audit feed of trigger events',
  entry: (e) => ({ type: e.type, body: feedEvent(e) }),
};

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
export const feedPage = async (
  store: EventStore,
  after: Checkpoint,
  limit: number,
  maxBytes = MAX_LIST_PAGE_BYTES,
  source: FeedSource = TRIGGER_EVENTS,
): Promise<FeedPage> => {
  const page = boundedPage(maxBytes);
  let last: bigint | undefined;
  let from = after;
  while (page.items.length < limit) {
    const maxCount = Math.min(limit - page.items.length, PAGE_READ_CHUNK);
    const events = await store.readCategory(source.category, from, maxCount);
    for (const e of events) {
      const entry = source.entry(e);
      if (entry && !page.add(JSON.stringify(entry.body))) return { items: page.items, last, full: true };
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
export const listEvents =
  (store: EventStore, source: FeedSource = TRIGGER_EVENTS) =>
  async (req: Request, res: Response) => {
    const query = parseFeedQuery(req.query, true);
    if (E.isLeft(query)) return sendError(res, { _tag: 'Validation', errors: query.left });
    const { after, limit } = query.right;
    const page = await feedPage(store, after, limit, MAX_LIST_PAGE_BYTES, source);
    const next = page.last ?? (after === 'start' ? null : after);
    if (next !== null && page.full) {
      res.set('Link', `<${req.baseUrl}${req.path}?after=${next.toString()}&limit=${limit}>; rel="next"`);
    }
    sendJson(res, 200, `{"${source.items}":[${page.items.join(',')}],"next":${next === null ? 'null' : `"${next.toString()}"`}}`);
  };
