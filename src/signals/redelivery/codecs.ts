import * as t from 'io-ts';
import { MAX_ACTIONS_PER_DISPATCH } from '../../kernel/limits';
import { closed, described } from '../../kernel/closed';
import { Timestamp } from '../../model/signals/codecs';

const Mode = described(t.keyof({ as_dispatched: null, current: null }), 'must be "as_dispatched" or "current"');
const DeliveryId = described(t.string, 'must be a delivery id (a string)');
/** Each bad item named by its index; the list itself when it is not one, empty or too long. */
const DeliveryIds = new t.Type<string[], string[], unknown>(
  'DeliveryIds',
  (u): u is string[] => Array.isArray(u),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, 'must be an array of delivery ids');
    if (u.length === 0) return t.failure(u, c, 'must name at least one delivery id (or leave it out for every action not delivered)');
    if (u.length > MAX_ACTIONS_PER_DISPATCH) return t.failure(u, c, `at most ${MAX_ACTIONS_PER_DISPATCH} delivery ids`);
    return t.array(DeliveryId).validate(u, c);
  },
  t.identity,
);

/** `POST /api/signals/<id>/redeliver`. */
export const RedeliverBody = closed('Redeliver', { mode: Mode }, { delivery_ids: DeliveryIds });
export type RedeliverBody = t.TypeOf<typeof RedeliverBody>;

/** `POST /api/action-triggers/<id>/redeliver-failed`. */
export const RedeliverFailedBody = closed('RedeliverFailed', { since: Timestamp }, {});
