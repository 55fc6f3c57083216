import { EventStore } from '../src/event-store/port';
import { loadTrigger } from '../src/event-store/handle-command';
import { streamOf } from '../src/triggers/events';
import type { TriggerDefinition } from '../src/triggers/codecs';

/**
 * A trigger's definition as it was at `version`, read from its events. The workflow records
 * only ids and versions; each attempt rebuilds the definition here, so what is delivered is
 * exactly what matched, and no header or credential enters the workflow history.
 */
export const definitionAt = async (store: EventStore, triggerId: string, version: number): Promise<TriggerDefinition | undefined> => {
  const { state } = await loadTrigger(store, streamOf(triggerId), version);
  return state.status === 'live' ? state.definition : undefined;
};
