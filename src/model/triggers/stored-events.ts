import { UnreadableEvent } from '../../event-store/port';
import * as t from 'io-ts';
import { SIGNALS, SignalName, TriggerDefinition, keptOrdering } from './codecs';
import { DESTINATIONS } from '../../destinations/registry';
import { storedOneOf, storedShape } from '../../kernel/closed';
import { describeErrors } from '../../kernel/field-errors';
import type { JsonValue } from '../../kernel/json-value';
import { SCHEMA_VERSION, TriggerEvent } from './events';
import type { Condition } from '../conditions/syntax';

/**
 * Events read back from the store. Independent of request validation on purpose: a stricter
 * rule for new requests (URL patterns, broker names, limits) must never make a stored trigger
 * vanish. Structural only: the shapes this service has ever written; unknown extra fields
 * are dropped; older `schema_version`s are upcast one step at a time to the current one.
 */

/** A stored event's type and data, plus where it is (for the error when it cannot be read). */
export interface RawEvent {
  readonly type: string;
  readonly data: unknown;
  readonly streamId: string;
  readonly revision: bigint;
}

/** One upcaster per version: `UPCASTERS[n]` turns version n data into version n + 1 data. */
export type Upcaster = (type: string, data: Record<string, unknown>) => Record<string, unknown>;
export const UPCASTERS: Readonly<Record<number, Upcaster>> = {
  // 1: (type, data) => ({ ...data, schema_version: 2, … })   ← adding v2 is one function here.
};

const { webhook, broker } = DESTINATIONS;
const StoredDefinition = storedShape(
  {
    config_signals: t.array(t.exact(t.type({ signal: storedOneOf<SignalName>('SignalName', SIGNALS) }))),
    content_types: t.array(t.exact(t.type({ app_label: t.string, model_name: t.string }))),
    active: t.boolean,
  },
  {
    webhooks: t.array(webhook.stored),
    msg_broker_queues: t.array(broker.stored),
    payload: t.unknown,
    condition: t.UnknownRecord,
    ordering: t.string,
  },
);

const Envelope = t.type({ schema_version: t.number, trigger_id: t.string });

const toDefinition = (d: t.TypeOf<typeof StoredDefinition>): TriggerDefinition => {
  const { webhooks, msg_broker_queues, payload, condition, ordering, ...rest } = d;
  return {
    ...rest,
    webhooks: webhooks ?? [],
    msg_broker_queues: msg_broker_queues ?? [],
    ...(payload === undefined || payload === null ? {} : { payload: payload as JsonValue }),
    ...(condition === undefined ? {} : { condition: condition as Condition }),
    ...keptOrdering(ordering),
  };
};

const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, u: unknown, fail: (reason: string) => never): A => {
  const result = codec.decode(u);
  return result._tag === 'Right' ? result.right : fail(describeErrors(result.left));
};

/** Brings data written at an older `schema_version` up to `current`. */
const upcast = (
  type: string,
  data: Record<string, unknown>,
  from: number,
  current: number,
  upcasters: Readonly<Record<number, Upcaster>>,
  fail: (reason: string) => never,
) => {
  let out = data;
  for (let v = from; v < current; v++) {
    const step = upcasters[v];
    if (!step) fail(`no upcaster from schema_version ${v}`);
    out = step(type, out);
  }
  return out;
};

/**
 * Reads one stored trigger event; throws UnreadableEvent naming stream and revision when it
 * is of an unknown type, of a bad shape, or written by a newer build: an event this build cannot
 * read is an infrastructure fault, never skipped silently.
 */
export const readStoredEvent = (raw: RawEvent, current = SCHEMA_VERSION, upcasters = UPCASTERS): TriggerEvent => {
  const fail = (reason: string): never => {
    throw new UnreadableEvent(raw.streamId, raw.revision, reason);
  };
  if (typeof raw.data !== 'object' || raw.data === null || Array.isArray(raw.data)) fail('data is not an object');
  const data = raw.data as Record<string, unknown>;
  // An adapter's placeholder for an event it could not decode (src/event-store/kurrentdb.ts toStored).
  if (typeof data.unreadable === 'string' && data.schema_version === undefined) fail(data.unreadable);
  const version = data.schema_version;
  if (typeof version !== 'number' || !Number.isInteger(version)) fail('schema_version is missing or not an integer');
  if ((version as number) > current) fail(`schema_version ${String(version)} is newer than this build reads (${current})`);
  const up = upcast(raw.type, data, version as number, current, upcasters, fail);
  const { trigger_id } = decodeOrThrow(Envelope, up, fail);
  const schema_version = current;
  switch (raw.type) {
    case 'TriggerCreated':
    case 'TriggerUpdated':
      return {
        type: raw.type,
        data: { schema_version, trigger_id, definition: toDefinition(decodeOrThrow(StoredDefinition, up.definition, fail)) },
      };
    case 'TriggerDeactivated': {
      // `reason` is optional and additive: no schema_version step (older builds drop it).
      const { reason } = decodeOrThrow(t.exact(t.partial({ reason: t.string })), up, fail);
      return { type: raw.type, data: { schema_version, trigger_id, ...(reason === undefined ? {} : { reason }) } };
    }
    case 'TriggerActivated':
    case 'TriggerDeleted':
      return { type: raw.type, data: { schema_version, trigger_id } };
    default:
      return fail(`unknown event type ${raw.type}`);
  }
};
