import { START, streamNameFilter } from '@kurrent/kurrentdb-client';
import type { ResolvedEvent } from '@kurrent/kurrentdb-client';
import { Category, Checkpoint, StoredEvent } from './port';

/** How the KurrentDB adapter names what the port speaks of: a category, a position, a stored event. */

export const categoryFilter = (category: Category) => streamNameFilter({ prefixes: [`${category}-`] });
export const fromPositionOf = (from: Checkpoint) => (from === 'start' ? START : { commit: from, prepare: from });

/**
 * A stored event as the port shows it. One this service did not write as JSON keeps its place
 * (revision, position) with `data.unreadable` saying why: skipping it would shift every later
 * revision, so a trigger's versions (and the state folded from them) would be wrong; its
 * readers fail on it instead (UnreadableEvent for triggers), as they do on SQLite.
 */
export const toStored = (resolved: ResolvedEvent): StoredEvent | undefined => {
  const e = resolved.event;
  if (!e) return undefined;
  const json = e.isJson && typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data);
  return {
    streamId: e.streamId,
    revision: e.revision,
    position: e.position?.commit ?? resolved.commitPosition ?? 0n,
    type: e.type,
    data: json ? (e.data as Record<string, unknown>) : { unreadable: e.isJson ? 'data is not a JSON object' : 'data is not JSON' },
    metadata: (e.isJson && typeof e.metadata === 'object' && e.metadata !== null ? e.metadata : {}) as Record<string, unknown>,
  };
};
