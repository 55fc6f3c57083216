import * as E from 'fp-ts/Either';
import type { Request, Response } from 'express';
import { EventStore } from '../event-store/port';
import { occurredAt, streamOf } from '../triggers/events';
import { Timestamp } from '../signals/codecs';
import { invalid, problem, sendProblem } from '../http/problem';
import { etagOf, sendJson } from '../http/request';
import { toResource, TriggerView } from '../../projections/trigger-view';
import { loadTrigger } from '../event-store/handle-command';

/** `as_of` as milliseconds since the epoch, or the field error. */
export const parseAsOf = (value: unknown): E.Either<{ path: string; message: string }, number> => {
  const error = { path: 'query.as_of', message: 'must be one RFC 3339 timestamp, such as 2026-11-22T12:00:00Z (an offset\'s + sent as %2B)' };
  const ms = typeof value === 'string' && E.isRight(Timestamp.decode(value)) ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? E.right(ms) : E.left(error);
};

/** Events read at a time while looking for the first one after `at` (each may be up to 1 MiB). */
const SCAN_CHUNK = 20;

/**
 * How many of the stream's events come before the first one recorded after `at`. Read in small
 * chunks, yielding between them, so neither memory nor the event loop pays for the whole stream.
 */
const versionAt = async (store: EventStore, streamId: string, at: number): Promise<number> => {
  for (let from = 0n; ; from += BigInt(SCAN_CHUNK)) {
    const chunk = await store.read(streamId, { fromRevision: from, maxCount: SCAN_CHUNK });
    const after = chunk.findIndex((e) => Date.parse(occurredAt(e.metadata)) > at);
    if (after >= 0) return Number(from) + after;
    if (chunk.length < SCAN_CHUNK) return Number(from) + chunk.length;
    await new Promise((r) => setImmediate(r));
  }
};

/** The trigger at its first `version` events, as its resource showed it: from the newest snapshot and the events after it. */
const viewAt = async (store: EventStore, id: string, version: number): Promise<TriggerView | undefined> => {
  if (version === 0) return undefined;
  const { state, createdAt, updatedAt } = await loadTrigger(store, streamOf(id), version);
  if (state.status !== 'live' || createdAt === undefined || updatedAt === undefined) return undefined;
  return { id, definition: state.definition, version, created_at: createdAt, updated_at: updatedAt,
    ...(state.deactivatedReason === undefined ? {} : { deactivated_reason: state.deactivatedReason }) };
};

/**
 * The trigger as it was at `at` (ms): its state after the events whose recorded time
 * (metadata.occurred_at, the time history shows) is at or before it. Inclusive: an event
 * recorded at exactly `at` counts. It stops at the first event after `at`, so the answer is
 * always a state the trigger really had, even if clocks went backwards. Undefined when it did
 * not exist yet, or was deleted by then.
 */
export const triggerAsOf = async (store: EventStore, id: string, at: number) => viewAt(store, id, await versionAt(store, streamOf(id), at));

/** `GET /api/action-triggers/<id>?as_of=`: the resource as GET showed it then, with the ETag of that version. */
export const getTriggerAsOf = async (store: EventStore, id: string, req: Request, res: Response) => {
  const at = parseAsOf(req.query.as_of);
  if (E.isLeft(at)) return sendProblem(res, invalid([at.left]));
  const view = await triggerAsOf(store, id, at.right);
  if (!view) return sendProblem(res, problem(404, `no trigger with id ${id} at ${String(req.query.as_of)}`));
  sendJson(res, 200, JSON.stringify(toResource(view)), { ETag: etagOf(view.version) });
};
