import type { EventStore } from '../event-store/port';
import type { DestinationSettings } from '../destinations/registry';
import type { Alert } from '../model/alerts/alert';
import { AlertRules, Backlogs, onBacklog } from '../model/alerts/decide';
import { destinationPaces } from '../pacing/destination-paces';

/** How often the destinations' backlogs are looked at: one read per configured limit. */
export const BACKLOG_LOOK_MS = 15_000;

/**
 * One look at every limited destination's backlog: the `destination.backlog` alerts it raises
 * (each recorded by `record`, which records an id once), and what is past the threshold after it.
 */
export const lookAtBacklogs = async (
  store: EventStore,
  destinations: DestinationSettings,
  threshold: number,
  rules: AlertRules,
  from: Backlogs,
  record: (alert: Alert) => Promise<boolean>,
): Promise<{ backlogs: Backlogs; raised: Alert[] }> => {
  const now = Date.now();
  let backlogs = from;
  const raised: Alert[] = [];
  for (const pace of await destinationPaces(store, destinations, now)) {
    const decided = onBacklog(backlogs, { key: pace.name, backlog: pace.backlog, at: new Date(now).toISOString() }, threshold, rules);
    backlogs = decided.backlogs;
    if (decided.alert && (await record(decided.alert))) raised.push(decided.alert);
  }
  return { backlogs, raised };
};
