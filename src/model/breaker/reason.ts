import type { ActionKind } from '../../dispatch/types';
import type { TriggerDefinition } from '../triggers/codecs';
import type { Trip } from './state';

/** The actor of the events the breaker writes. */
export const BREAKER_ACTOR = 'system:circuit-breaker';

/** `w<index>` / `q<index>`, as in delivery ids. */
export const actionKeyOf = (kind: ActionKind, index: number) => `${kind === 'webhook' ? 'w' : 'q'}${index}`;

/**
 * A webhook URL as it may be shown: scheme, host and path. A query string, fragment or user
 * info may hold a credential; they are left out.
 */
const shownUrl = (url: string): string | undefined => {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
};

/** `webhook 0 (https://host/path)` or `queue 1 (orders)`: names the action, never a secret. */
export const actionName = (definition: TriggerDefinition | undefined, kind: ActionKind, index: number): string => {
  if (kind === 'webhook') {
    const url = definition?.webhooks[index] && shownUrl(definition.webhooks[index].url);
    return url === undefined ? `webhook ${index}` : `webhook ${index} (${url})`;
  }
  const queue = definition?.msg_broker_queues[index];
  return queue === undefined ? `queue ${index}` : `queue ${index} (${queue.name})`;
};

const hours = (ms: number) => `${Number((ms / 3_600_000).toPrecision(3))} h`;

/** The reason a deactivation records; `lastError` is an attempt's reason, which never holds a resolved value. */
export const reasonOf = (action: string, trip: Trip, lastError: string, failingForMs: number): string => {
  switch (trip.rule) {
    case 'gone':
      return `${action} answered 410 Gone`;
    case 'consecutive_failures':
      return `${action} failed every attempt of ${trip.failures} consecutive dispatches (last error: ${lastError})`;
    case 'failing_for':
      return (
        `${action} has failed every dispatch for more than ${hours(failingForMs)}, since ${trip.since} ` +
        `(${trip.failures} dispatches; last error: ${lastError})`
      );
    default: {
      const _never: never = trip;
      return action;
    }
  }
};
