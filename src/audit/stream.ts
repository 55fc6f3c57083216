import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { Checkpoint, EventStore, StoredEvent, Subscription } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { sendError } from '../http/problem';
import type { DomainError } from '../kernel/domain-error';
import { parseFeedQuery, parsePosition } from './feed-query';
import { FeedSource, TRIGGER_EVENTS } from './feed';
import { createStreamBudget } from './stream-budget';
import { EVENT_STREAM_READ_BYTES, EVENT_STREAM_STALL_MS, EVENT_STREAMS_MAX_BYTES, MAX_EVENT_STREAMS } from '../kernel/limits';

export interface EventStreamOptions {
  /** Streams one process serves at once; one more is 503 with Retry-After. */
  readonly maxStreams: number;
  /** A comment line this often keeps proxies and clients from timing an idle stream out. */
  readonly heartbeatMs: number;
  /** A client whose socket takes nothing for this long is dropped. */
  readonly stallMs: number;
  /** Event data one stream reads from the store at a time (at least one event). */
  readonly readBytes: number;
  /** Event text all streams together hold (src/audit/stream-budget.ts). */
  readonly maxHeldBytes: number;
}

export const EVENT_STREAM_DEFAULTS: EventStreamOptions = {
  maxStreams: MAX_EVENT_STREAMS,
  heartbeatMs: 15_000,
  stallMs: EVENT_STREAM_STALL_MS,
  readBytes: EVENT_STREAM_READ_BYTES,
  maxHeldBytes: EVENT_STREAMS_MAX_BYTES,
};

/** One event as Server-Sent Events text (empty: not shown): the position is its id, so a reconnect resumes after it. */
export const sseOf = (e: StoredEvent, source: FeedSource = TRIGGER_EVENTS) => {
  const entry = source.entry(e);
  return entry ? `id: ${e.position.toString()}\nevent: ${entry.type}\ndata: ${JSON.stringify(entry.body)}\n\n` : '';
};

/** Where a stream starts: `Last-Event-ID` (a reconnect) wins over `?after=`; absent both, the start. */
const startOf = (req: Request): E.Either<DomainError, Checkpoint> => {
  const query = parseFeedQuery(req.query, false);
  if (E.isLeft(query)) return E.left({ _tag: 'Validation', errors: query.left });
  const header = req.get('last-event-id');
  if (header === undefined) return E.right(query.right.after);
  const position = parsePosition(header.trim());
  return position === undefined
    ? E.left({
        _tag: 'Validation',
        errors: [{ path: 'header:Last-Event-ID', message: 'must be a position: the id of an event this stream sent' }],
      })
    : E.right(position);
};

/**
 * Writes `text`; true once the socket took it (at once, or on 'drain'). False when the client
 * went away, or took nothing for `stallMs`: then it is dropped, which closes its subscription.
 */
const send = (res: Response, text: string, stallMs: number, dropped: () => void) =>
  new Promise<boolean>((resolve) => {
    if (res.destroyed) return resolve(false);
    if (res.write(text)) return resolve(true);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', drained);
      res.off('close', gone);
      resolve(ok);
    };
    const drained = () => done(true);
    const gone = () => done(false);
    const timer = setTimeout(() => {
      done(false);
      dropped();
      res.destroy();
    }, stallMs);
    res.on('drain', drained);
    res.on('close', gone);
  });

/**
 * `GET /api/events/stream`: the audit feed live, as Server-Sent Events. Sends the backlog after
 * the start position, then follows the store's subscription. Each stream reads at most
 * `readBytes` of events at a time, and reads on only once its socket took them and the
 * process's budget (`maxHeldBytes`, all streams together) has room: a slow client slows its own
 * reads only, and one that reads nothing holds one batch until it is dropped after `stallMs`.
 * The subscription closes when the client goes.
 */
export const createEventStreams = (
  store: EventStore,
  log: Logger,
  given: Partial<EventStreamOptions> = {},
  source: FeedSource = TRIGGER_EVENTS,
) => {
  const options = { ...EVENT_STREAM_DEFAULTS, ...given };
  const open = new Set<Response>();
  const budget = createStreamBudget(options.maxHeldBytes);
  const dropped = () => log.info(`event stream: dropped a client that took nothing for ${options.stallMs} ms`);
  const readFailed = (e: unknown) => log.warn('event stream: reading the store failed; retrying', { error: String(e) });
  /** Room in the budget for one more read, or the client went (then nothing is read). */
  const room = (gone: Promise<void>) => Promise.race([budget.room(options.readBytes), gone]);

  /**
   * Sends one batch, counted in the budget from its read (the store reads just before calling
   * this) until each event's socket took it; returns, letting the subscription read on, once
   * all of it went out and the budget has room for the next read.
   */
  const sendBatch = (res: Response, gone: Promise<void>) => async (batch: readonly StoredEvent[]) => {
    const texts = batch.map((e) => sseOf(e, source)).filter((t) => t !== '');
    const sizes = texts.map((t) => Buffer.byteLength(t));
    let held = sizes.reduce((a, b) => a + b, 0);
    budget.hold(held);
    try {
      for (let i = 0; i < texts.length; i++) {
        if (!(await send(res, texts[i]!, options.stallMs, dropped))) return await gone;
        texts[i] = '';
        budget.release(sizes[i]!);
        held -= sizes[i]!;
      }
    } finally {
      budget.release(held);
    }
    await room(gone);
  };

  const handle = (req: Request, res: Response) => {
    const start = startOf(req);
    if (E.isLeft(start)) return sendError(res, start.left);
    if (open.size >= options.maxStreams) {
      res.set('Retry-After', '5');
      return sendError(res, {
        _tag: 'Unavailable',
        reason: `this process already serves ${options.maxStreams} event streams; try again later`,
      });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    if (req.method === 'HEAD') return res.end();
    open.add(res);
    let closed = false;
    let subscription: Subscription | undefined;
    const gone = new Promise<void>((resolve) => res.once('close', resolve));
    res.write(`: ${source.title}; retry after 1 s on a drop\nretry: 1000\n\n`);
    void room(gone).then(() => {
      if (!closed)
        subscription = store.subscribe(start.right, sendBatch(res, gone), readFailed, {
          maxBatchBytes: options.readBytes,
          category: source.category,
        });
    });
    // Only on an idle stream: while the socket is behind, a heartbeat would only queue more.
    const heartbeat = setInterval(() => {
      if (!res.destroyed && res.writableLength === 0) res.write(': heartbeat\n\n');
    }, options.heartbeatMs);
    res.once('close', () => {
      closed = true;
      clearInterval(heartbeat);
      open.delete(res);
      subscription?.close().catch((e: unknown) => log.warn('event stream: closing the subscription failed', { error: String(e) }));
    });
  };
  return {
    handle,
    open: () => open.size,
    /** Bytes of event text the streams hold now (read, not yet taken by their sockets). */
    held: () => budget.held(),
    /** Ends every stream (on shutdown: an open stream would keep server.close() waiting forever); clients reconnect elsewhere. */
    endAll: () => {
      for (const res of open) res.end();
    },
  };
};

export type EventStreams = ReturnType<typeof createEventStreams>;
