import type { SinkSettings } from '../../config/alerts/settings';
import type { Sink } from '../../model/alerts/alert';

/** What every sink is, whatever its type: its name, its type, the alerts it wants and its rate. */
export const identityOf = (s: SinkSettings): Pick<Sink, 'name' | 'type' | 'events' | 'maxPerMinute'> => ({
  name: s.name,
  type: s.type,
  events: s.events,
  maxPerMinute: s.maxPerMinute,
});
