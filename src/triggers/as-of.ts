import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { EventStore } from '../event-store/port';
import { occurredAt, streamOf } from '../model/triggers/events';
import { Timestamp } from '../model/signals/codecs';
import { sendError } from '../http/problem';
import { etagOf, sendJson } from '../http/request';
import { toResource, TriggerView } from '../projections/trigger-view';
import { loadTrigger } from '../model/triggers/handle-command';

/** `as_of` as milliseconds since the epoch, or the field error. */
export const parseAsOf = (value: unknown): E.Either<{ path: string; message: string }, number> => {
  const error = {
    path: 'query.as_of',
    message: "must be one RFC 3339 timestamp, such as 2026-11-22T12:00:00Z (an offset's + sent as %2B)",
  };
  const ms = typeof value === 'string' && E.isRight(Timestamp.decode(value)) ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? E.right(ms) : E.left(error);
};

/** When the event at `revision` was recorded (ms), read alone. */
const recordedAt = async (store: EventStore, streamId: string, revision: bigint) =>
  Date.parse(occurredAt((await store.read(streamId, { fromRevision: revision, maxCount: 1 }))[0]?.metadata));

/**
 * The version as of `at`: the number of events before a place where an event recorded at or
 * before `at` is followed by one recorded after it, found by bisection (about log2(versions)
 * single-event reads). Recorded times normally grow along the stream, and then this is the
 * first event after `at`; if a clock went backwards it is still a version the trigger had.
 */
const versionAt = async (store: EventStore, streamId: string, at: number): Promise<number> => {
  const [last] = await store.read(streamId, { direction: 'backwards', maxCount: 1 });
  if (!last) return 0;
  // Invariant: the event at `hi` was recorded after `at` (the end counts as such), the one
  // before `lo` at or before it.
  let lo = 0n;
  let hi = last.revision + 1n;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if ((await recordedAt(store, streamId, mid)) > at) hi = mid;
    else lo = mid + 1n;
  }
  return Number(hi);
};

/** The trigger at its first `version` events, as its resource showed it: from the newest snapshot and the events after it. */
const viewAt = async (store: EventStore, id: string, version: number): Promise<TriggerView | undefined> => {
  if (version === 0) return undefined;
  const { state, createdAt, updatedAt } = await loadTrigger(store, streamOf(id), version);
  if (state.status !== 'live' || createdAt === undefined || updatedAt === undefined) return undefined;
  return {
    id,
    definition: state.definition,
    version,
    created_at: createdAt,
    updated_at: updatedAt,
    ...(state.deactivatedReason === undefined ? {} : { deactivated_reason: state.deactivatedReason }),
  };
};

/**
 * The trigger as it was at `at` (ms): its state after the events whose recorded time
 * (metadata.occurred_at, the time history shows) is at or before it. Inclusive: an event
 * recorded at exactly `at` counts. Always a state the trigger really had (a prefix of its
 * events), even if clocks went backwards (see versionAt). Undefined when it did not exist yet,
 * or was deleted by then.
 */
export const triggerAsOf = async (store: EventStore, id: string, at: number) => viewAt(store, id, await versionAt(store, streamOf(id), at));

/** `GET /api/action-triggers/<id>?as_of=`: the resource as GET showed it then, with the ETag of that version. */
export const getTriggerAsOf = async (store: EventStore, id: string, req: Request, res: Response) => {
  const at = parseAsOf(req.query.as_of);
  if (E.isLeft(at)) return sendError(res, { _tag: 'Validation', errors: [at.left] });
  const view = await triggerAsOf(store, id, at.right);
  if (!view) return sendError(res, { _tag: 'NotFound', ids: [id], asOf: String(req.query.as_of) });
  sendJson(res, 200, JSON.stringify(toResource(view)), { ETag: etagOf(view.version) });
};
