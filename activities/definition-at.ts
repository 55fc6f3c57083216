import { EventStore } from '../src/event-store/port';
import { decodeTriggerEvent, streamOf } from '../src/triggers/events';
import { evolve, initialState, TriggerState } from '../src/triggers/trigger';
import type { TriggerDefinition } from '../src/triggers/codecs';

/**
 * A trigger's definition as it was at `version`, read from its events. The workflow records
 * only ids and versions; each attempt rebuilds the definition here, so what is delivered is
 * exactly what matched, and no header or credential enters the workflow history.
 */
export const definitionAt = async (store: EventStore, triggerId: string, version: number): Promise<TriggerDefinition | undefined> => {
  const events = await store.read(streamOf(triggerId));
  let state: TriggerState = initialState;
  for (const stored of events.slice(0, version)) {
    const event = decodeTriggerEvent(stored.type, stored.data);
    if (event) state = evolve(state, event);
  }
  return state.status === 'live' ? state.definition : undefined;
};
