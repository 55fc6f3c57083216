import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { EventStore, StoredEvent } from '../event-store/port';
import { occurredAt, streamOf } from '../triggers/events';
import { readStoredEvent } from '../triggers/stored-events';
import { Timestamp } from '../signals/codecs';
import { invalid, problem, sendProblem } from '../http/problem';
import { etagOf, sendJson } from '../http/request';
import { evolveView, toResource, TriggerView } from '../../projections/trigger-view';

/** `as_of` as milliseconds since the epoch, or the field error. */
export const parseAsOf = (value: unknown): E.Either<{ path: string; message: string }, number> => {
  const error = { path: 'query.as_of', message: 'must be one RFC 3339 timestamp, such as 2026-11-22T12:00:00Z (an offset\'s + sent as %2B)' };
  const ms = typeof value === 'string' && E.isRight(Timestamp.decode(value)) ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? E.right(ms) : E.left(error);
};

/**
 * The trigger as it was at `at` (ms): the read model's own view step folded over the events
 * whose recorded time (metadata.occurred_at, the time history shows) is at or before it.
 * Inclusive: an event recorded at exactly `at` counts. The fold stops at the first event after
 * `at`, so the answer is always a state the trigger really had, even if clocks went backwards.
 * Undefined when it did not exist yet, or was deleted by then.
 */
export const triggerAsOf = (events: readonly StoredEvent[], at: number): TriggerView | undefined => {
  let view: TriggerView | undefined;
  for (const stored of events) {
    const occurred_at = occurredAt(stored.metadata);
    if (Date.parse(occurred_at) > at) break;
    const next = evolveView(view, readStoredEvent(stored), { revision: Number(stored.revision), occurred_at });
    view = next === null ? undefined : next ?? view;
  }
  return view;
};

/** `GET /api/action-triggers/<id>?as_of=`: the resource as GET showed it then, with the ETag of that version. */
export const getTriggerAsOf = async (store: EventStore, id: string, req: Request, res: Response) => {
  const at = parseAsOf(req.query.as_of);
  if (E.isLeft(at)) return sendProblem(res, invalid([at.left]));
  const view = triggerAsOf(await store.read(streamOf(id)), at.right);
  if (!view) return sendProblem(res, problem(404, `no trigger with id ${id} at ${String(req.query.as_of)}`));
  sendJson(res, 200, JSON.stringify(toResource(view)), { ETag: etagOf(view.version) });
};
