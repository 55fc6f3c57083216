import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { EventStore, StoredEvent, TRIGGER_STREAM_PREFIX } from '../event-store/port';
import { historyEntry } from '../triggers/history';
import { invalid, sendProblem } from '../http/problem';
import { sendJson } from '../http/request';
import { MAX_LIST_PAGE_BYTES } from '../limits';
import { parseFeedQuery } from './feed-query';

/** One feed event: the history view plus where it belongs (trigger id) and where it is (position, a decimal string). */
export const feedEvent = (e: StoredEvent) => ({
  position: e.position.toString(),
  trigger_id: e.streamId.slice(TRIGGER_STREAM_PREFIX.length),
  ...historyEntry(e),
});

/**
 * Serialises events until the page would pass `maxBytes` (always at least one): the rest
 * comes on the next page, since `next` is the last position included.
 */
export const pageOf = (events: readonly StoredEvent[], maxBytes = MAX_LIST_PAGE_BYTES) => {
  const items: string[] = [];
  let bytes = 0;
  let last: StoredEvent | undefined;
  for (const e of events) {
    const json = JSON.stringify(feedEvent(e));
    bytes += Buffer.byteLength(json) + 1;
    if (items.length > 0 && bytes > maxBytes) break;
    items.push(json);
    last = e;
  }
  return { items, last, cut: items.length < events.length };
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
  if (E.isLeft(query)) return sendProblem(res, invalid(query.left));
  const { after, limit } = query.right;
  const events = await store.readCategory('action_trigger', after, limit);
  const page = pageOf(events);
  const next = page.last?.position ?? (after === 'start' ? null : after);
  if (next !== null && (page.cut || events.length === limit)) {
    res.set('Link', `<${req.baseUrl}${req.path}?after=${next.toString()}&limit=${limit}>; rel="next"`);
  }
  sendJson(res, 200, `{"events":[${page.items.join(',')}],"next":${next === null ? 'null' : `"${next.toString()}"`}}`);
};
