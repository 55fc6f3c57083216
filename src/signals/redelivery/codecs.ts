import * as t from 'io-ts';
import { closed, described } from '../../kernel/closed';
import { deliveryIds, Timestamp } from '../../model/signals/codecs';

const Mode = described(t.keyof({ as_dispatched: null, current: null }), 'must be "as_dispatched" or "current"');

/** `POST /api/signals/<id>/redeliver`. */
export const RedeliverBody = closed('Redeliver', { mode: Mode }, { delivery_ids: deliveryIds('every action not delivered') });
export type RedeliverBody = t.TypeOf<typeof RedeliverBody>;

/** `POST /api/action-triggers/<id>/redeliver-failed`. */
export const RedeliverFailedBody = closed('RedeliverFailed', { since: Timestamp }, {});
