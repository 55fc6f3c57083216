/**
 * A destination's limit in the config (`webhook_limits[i]`, `brokers.<name>.limits`): the fields
 * every kind shares, their rules, and the key a limit is kept under.
 */
import * as t from 'io-ts';
import { checked, described, hasField, withFieldRules } from '../../kernel/closed';
import type { ActionKind } from '../../dispatch/types';
import type { PaceLimit } from '../../dispatch/pacing';

export const MAX_PER_SECOND = 10_000;
export const MAX_BURST = 1000;
export const MAX_IN_FLIGHT = 1000;

const aNumber = described(t.number, 'must be a number');
const wholeUpTo = (name: string, max: number) =>
  checked(aNumber, name, (n) => (Number.isInteger(n) && n >= 1 && n <= max ? undefined : `must be a whole number from 1 to ${max}`));

/** The limit fields, each optional alone; `limitRules` says which go together. */
export const limitFields = {
  max_per_second: checked(aNumber, 'MaxPerSecond', (n) =>
    Number.isFinite(n) && n > 0 && n <= MAX_PER_SECOND ? undefined : `must be greater than 0 and at most ${MAX_PER_SECOND}`,
  ),
  burst: wholeUpTo('Burst', MAX_BURST),
  max_in_flight: wholeUpTo('MaxInFlight', MAX_IN_FLIGHT),
};

export interface LimitFields {
  max_per_second?: number;
  burst?: number;
  max_in_flight?: number;
}

/**
 * An object codec holding the limit fields, plus the rules across them: at least one of
 * `max_per_second` and `max_in_flight`, and `burst` only with `max_per_second`. The rules read
 * which fields are there, not their values, so a bad value and a missing partner are named together.
 */
export const limitRules = <A extends LimitFields>(base: t.Type<A, A, unknown>) =>
  withFieldRules(base, (fields) => [
    ...(!hasField(fields, 'max_per_second') && !hasField(fields, 'max_in_flight')
      ? [{ message: 'needs max_per_second, max_in_flight or both' }]
      : []),
    ...(hasField(fields, 'burst') && !hasField(fields, 'max_per_second')
      ? [{ field: 'burst', message: 'is only allowed with max_per_second' }]
      : []),
  ]);

/** The limit a checked entry sets; `burst` defaults to 1 (no burst: one attempt per interval). */
export const paceLimitFrom = (fields: LimitFields): PaceLimit => ({
  ...(fields.max_per_second === undefined ? {} : { maxPerSecond: fields.max_per_second }),
  burst: fields.burst ?? 1,
  ...(fields.max_in_flight === undefined ? {} : { maxInFlight: fields.max_in_flight }),
});

/** A limit the config sets: its key, the limit, and what it covers as the config writes it (a URL prefix, a broker's name). */
export interface ConfiguredLimit {
  key: string;
  limit: PaceLimit;
  matches: string;
}

/** The key a destination's limit is kept under: its kind, then its name in that kind (`webhook:orders`). */
export const paceKey = (kind: ActionKind, name: string) => `${kind}:${name}`;

/** The name in a key of this kind; undefined for another kind's key. */
export const paceNameIn = (kind: ActionKind, key: string): string | undefined =>
  key.startsWith(`${kind}:`) ? key.slice(kind.length + 1) : undefined;
