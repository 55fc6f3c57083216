import { EventStore } from '../../event-store/port';
import { loadTrigger } from './handle-command';
import { streamOf } from './events';
import type { TriggerDefinition } from './codecs';

export type DefinitionAt = (triggerId: string, version: number) => Promise<TriggerDefinition | undefined>;

/** Definitions kept per worker: a version never changes, so the cache needs no invalidation. */
const CACHED_DEFINITIONS = 256;

/**
 * A trigger's definition as it was at `version`, read from its events. The workflow records
 * only ids and versions; each attempt rebuilds the definition here, so what is delivered is
 * exactly what matched, and no header or credential enters the workflow history.
 *
 * A signal fans out to every action of a trigger at once (up to 100): they share one read
 * and decode, instead of each decoding the same stream while the others wait for the CPU.
 */
export const createDefinitionAt = (store: EventStore, capacity = CACHED_DEFINITIONS): DefinitionAt => {
  const cache = new Map<string, Promise<TriggerDefinition | undefined>>();
  return (triggerId, version) => {
    const key = `${triggerId}@${version}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key); // most recently used last
      cache.set(key, hit);
      return hit;
    }
    const loading = loadTrigger(store, streamOf(triggerId), version).then(({ state }) =>
      state.status === 'live' ? state.definition : undefined,
    );
    cache.set(key, loading);
    loading.catch(() => cache.delete(key)); // a failed read is not remembered
    if (cache.size > capacity) cache.delete(cache.keys().next().value!);
    return loading;
  };
};
