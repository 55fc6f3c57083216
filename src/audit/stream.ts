import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { Checkpoint, EventStore, StoredEvent } from '../event-store/port';
import { Logger } from '../logger';
import { invalid, problem, sendProblem } from '../http/problem';
import { parseFeedQuery, parsePosition } from './feed-query';
import { feedEvent } from './feed';

export interface EventStreamOptions {
  /** Streams one process serves at once; one more is 503 with Retry-After. */
  readonly maxStreams: number;
  /** A comment line this often keeps proxies and clients from timing an idle stream out. */
  readonly heartbeatMs: number;
}

export const EVENT_STREAM_DEFAULTS: EventStreamOptions = { maxStreams: 100, heartbeatMs: 15_000 };

/** One event as Server-Sent Events text: the position is its id, so a reconnect resumes after it. */
export const sseOf = (e: StoredEvent) => `id: ${e.position.toString()}\nevent: ${e.type}\ndata: ${JSON.stringify(feedEvent(e))}\n\n`;

/** Where a stream starts: `Last-Event-ID` (a reconnect) wins over `?after=`; absent both, the start. */
const startOf = (req: Request): E.Either<ReturnType<typeof invalid>, Checkpoint> => {
  const query = parseFeedQuery(req.query, false);
  if (E.isLeft(query)) return E.left(invalid(query.left));
  const header = req.get('last-event-id');
  if (header === undefined) return E.right(query.right.after);
  const position = parsePosition(header.trim());
  return position === undefined
    ? E.left(invalid([{ path: 'header:Last-Event-ID', message: 'must be a position: the id of an event this stream sent' }]))
    : E.right(position);
};

/** Waits until the socket takes more, or the client went away (then the write is moot). */
const write = (res: Response, text: string) => new Promise<void>((resolve) => {
  if (res.destroyed || res.write(text)) return resolve();
  const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
  res.on('drain', done);
  res.on('close', done);
});

/**
 * `GET /api/events/stream`: the audit feed live, as Server-Sent Events. Sends the backlog after
 * the start position, then follows the store's subscription; the handler waits for the socket,
 * so a slow client slows its own reads only. The subscription closes when the client goes.
 */
export const createEventStreams = (store: EventStore, log: Logger, options: EventStreamOptions = EVENT_STREAM_DEFAULTS) => {
  const open = new Set<Response>();
  const handle = (req: Request, res: Response) => {
    const start = startOf(req);
    if (E.isLeft(start)) return sendProblem(res, start.left);
    if (open.size >= options.maxStreams) {
      res.set('Retry-After', '5');
      return sendProblem(res, problem(503, `this process already serves ${options.maxStreams} event streams; try again later`));
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    if (req.method === 'HEAD') return res.end();
    open.add(res);
    res.write(`: audit feed of trigger events; retry after 1 s on a drop\nretry: 1000\n\n`);
    const subscription = store.subscribe(start.right, async (batch) => {
      if (!res.destroyed) await write(res, batch.map(sseOf).join(''));
    }, (e) => log.warn('event stream: reading the store failed; retrying', { error: String(e) }));
    const heartbeat = setInterval(() => { if (!res.destroyed) res.write(': heartbeat\n\n'); }, options.heartbeatMs);
    res.once('close', () => {
      clearInterval(heartbeat);
      open.delete(res);
      subscription.close().catch((e: unknown) => log.warn('event stream: closing the subscription failed', { error: String(e) }));
    });
  };
  return {
    handle,
    open: () => open.size,
    /** Ends every stream (on shutdown: an open stream would keep server.close() waiting forever); clients reconnect elsewhere. */
    endAll: () => { for (const res of open) res.end(); },
  };
};

export type EventStreams = ReturnType<typeof createEventStreams>;
