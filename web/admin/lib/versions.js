// A trigger's definition after each of its events, folded as the aggregate does (src/model/triggers/trigger.ts).

/**
 * `[{ event, before, after }]` for history entries `{ type, version, data, metadata }`, oldest
 * first: the definition before and after each event; undefined when absent or deleted. Created
 * and Updated carry the whole definition; (de)activation changes `active` only. A later page
 * starts from `start`, the definition after the previous page's last event.
 */
export function versionsOf(events, start = undefined) {
  let current = start;
  return events.map((event) => {
    const before = current;
    current = evolve(current, event);
    return { event, before, after: current };
  });
}

function evolve(definition, event) {
  switch (event.type) {
    case 'TriggerCreated':
    case 'TriggerUpdated':
      return event.data?.definition;
    case 'TriggerActivated':
      return definition && { ...definition, active: true };
    case 'TriggerDeactivated':
      return definition && { ...definition, active: false };
    case 'TriggerDeleted':
      return undefined;
    default:
      return definition;
  }
}

/** What an event did, in a word or two. */
export const EVENT_LABELS = {
  TriggerCreated: 'Created',
  TriggerUpdated: 'Updated',
  TriggerActivated: 'Activated',
  TriggerDeactivated: 'Deactivated',
  TriggerDeleted: 'Deleted',
};
