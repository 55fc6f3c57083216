import { TriggerDefinition, Ordering } from '../model/triggers/codecs';
import { TriggerEvent } from '../model/triggers/events';
import { evolve } from '../model/triggers/trigger';

/** A trigger as the API shows it: the definition plus server fields. */
export interface TriggerView {
  readonly id: string;
  readonly definition: TriggerDefinition;
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** Why the service deactivated it (the circuit breaker); absent otherwise. */
  readonly deactivated_reason?: string;
}

export interface EventPlace {
  /** 0-based revision of the event in its stream. */
  readonly revision: number;
  readonly occurred_at: string;
}

/**
 * Pure projection step. Returns the new view, `null` when the trigger is gone, or the same
 * view when the event was applied already (replays are no-ops).
 */
export const evolveView = (view: TriggerView | undefined, event: TriggerEvent, at: EventPlace): TriggerView | null | undefined => {
  if (view !== undefined && at.revision < view.version) return view;
  const before =
    view === undefined
      ? { status: 'absent' as const }
      : { status: 'live' as const, definition: view.definition, ...reasonOf(view.deactivated_reason) };
  const after = evolve(before, event);
  if (after.status !== 'live') return null;
  return {
    id: event.data.trigger_id,
    definition: after.definition,
    version: at.revision + 1,
    created_at: view?.created_at ?? at.occurred_at,
    updated_at: at.occurred_at,
    ...(after.deactivatedReason === undefined ? {} : { deactivated_reason: after.deactivatedReason }),
  };
};

const reasonOf = (reason: string | undefined) => (reason === undefined ? {} : { deactivatedReason: reason });

/** The JSON body of a trigger resource, fields in a stable order. */
export const toResource = (view: TriggerView) => {
  const d = view.definition;
  return {
    id: view.id,
    config_signals: d.config_signals,
    content_types: d.content_types,
    webhooks: d.webhooks,
    msg_broker_queues: d.msg_broker_queues,
    active: d.active,
    ...(view.deactivated_reason === undefined ? {} : { deactivated_reason: view.deactivated_reason }),
    ...(d.payload === undefined ? {} : { payload: d.payload }),
    ...(d.condition === undefined ? {} : { condition: d.condition }),
    ordering: (d.ordering ?? 'none') as Ordering,
    version: view.version,
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
};

export type TriggerResource = ReturnType<typeof toResource>;
