import { isTriggerId } from '../../model/triggers/codecs';
import type { Request } from 'express';
import type { FieldError } from '../../kernel/field-errors';
import { oneQueryValue } from '../../http/request';

export const DEFAULT_SIGNAL_PAGE = 20;
export const MAX_SIGNAL_PAGE = 100;
/** The states `GET /api/signals/<id>` answers with; `state=` picks one. */
export const SIGNAL_STATES = [
  'queued',
  'unmatched',
  'refused',
  'running',
  'completed',
  'failed',
  'terminated',
  'timed_out',
  'canceled',
  'expired',
] as const;
export type SignalState = (typeof SIGNAL_STATES)[number];
/** base64url of a store position (decimal). */
export const SIGNAL_CURSOR = '^[A-Za-z0-9_-]{1,28}$';
const CURSOR_RE = new RegExp(SIGNAL_CURSOR);
const KNOWN = new Set(['trigger_id', 'state', 'limit', 'cursor']);

export interface SignalListQuery {
  triggerId?: string;
  state?: SignalState;
  limit: number;
  before?: bigint;
  /** A well-formed cursor that is no position: no such page (404, as for dispatches). */
  unknownCursor?: true;
}

export const encodeSignalCursor = (position: bigint) => Buffer.from(String(position), 'utf8').toString('base64url');

const positionOf = (cursor: string): bigint | undefined => {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^\d{1,19}$/.test(text) && BigInt(text) <= 9223372036854775807n ? BigInt(text) : undefined;
};

/** Validates `GET /api/signals`' query string; every bad parameter is named. */
export const parseSignalListQuery = (query: Request['query']): SignalListQuery | FieldError[] => {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query))
    if (!KNOWN.has(name)) errors.push({ path: `query.${name}`, message: `is not a known parameter (${[...KNOWN].join(', ')})` });
  const triggerId = oneQueryValue(query, 'trigger_id', errors);
  if (triggerId !== undefined && !isTriggerId(triggerId))
    errors.push({ path: 'query.trigger_id', message: 'must be a trigger id (a UUID)' });
  const state = oneQueryValue(query, 'state', errors);
  if (state !== undefined && !(SIGNAL_STATES as readonly string[]).includes(state))
    errors.push({ path: 'query.state', message: `must be one of ${SIGNAL_STATES.join(', ')}` });
  const limitText = oneQueryValue(query, 'limit', errors);
  const limit = limitText === undefined ? DEFAULT_SIGNAL_PAGE : Number(limitText);
  if (limitText !== undefined && !(/^\d+$/.test(limitText) && limit >= 1 && limit <= MAX_SIGNAL_PAGE)) {
    errors.push({ path: 'query.limit', message: `must be a whole number from 1 to ${MAX_SIGNAL_PAGE}` });
  }
  const cursor = oneQueryValue(query, 'cursor', errors);
  if (cursor !== undefined && !CURSOR_RE.test(cursor))
    errors.push({ path: 'query.cursor', message: 'must be a cursor from a previous page' });
  const before = cursor === undefined ? undefined : positionOf(cursor);
  if (errors.length > 0) return errors;
  return {
    limit,
    ...(triggerId === undefined ? {} : { triggerId: triggerId.toLowerCase() }),
    ...(state === undefined ? {} : { state: state as SignalState }),
    ...(before === undefined ? {} : { before }),
    ...(cursor !== undefined && before === undefined ? { unknownCursor: true as const } : {}),
  };
};
