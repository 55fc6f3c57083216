import type { StoredEvent } from './port';

/**
 * Events handed to a subscriber as this process appended them: their `data` and `metadata` are
 * the objects it passed to `append` (made by its own typed code, JSON-safe), not parsed back from
 * the stored JSON. A reader that only checks and upcasts what it reads may take them as they are
 * (the read model skips ~15 µs of parsing and decoding per trigger created); no one may change them.
 */
const asAppended = new WeakSet<StoredEvent>();

export const markAsAppended = (e: StoredEvent): StoredEvent => {
  asAppended.add(e);
  return e;
};

export const isAsAppended = (e: object): boolean => asAppended.has(e as StoredEvent);
