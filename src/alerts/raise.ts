import { Checkpoint, EventStore, StoredEvent, TRIGGER_STREAM_PREFIX, WrongExpectedRevision } from '../event-store/port';
import type { Alert } from '../model/alerts/alert';
import { AlertRules, boundWatching, BreakerFact, deactivatedAlert, onBreakerFact, Watching } from '../model/alerts/decide';
import { actionName, BREAKER_ACTOR } from '../model/breaker/reason';
import type { DefinitionAt } from '../model/triggers/definition-at';

/** An alert as recorded: `alert-<id>`, its first event. */
export const ALERT_RAISED = 'AlertRaised';
export const alertStreamOf = (id: string) => `alert-${id}`;

/** Breaker and trigger events read per step. */
const READ_MAX = 200;
/** Actions watched at most (each is saved with the progress). */
const MAX_WATCHED = 5000;

/**
 * Records an alert before anything sends it. Its id comes from the fact that raised it, so the
 * same fact read again (a restart before the progress was saved) records nothing new.
 */
export const recordAlert = async (store: EventStore, alert: Alert): Promise<boolean> => {
  try {
    await store.append(alertStreamOf(alert.id), [{ type: ALERT_RAISED, data: { alert }, metadata: {} }], 'no_stream');
    return true;
  } catch (e) {
    if (e instanceof WrongExpectedRevision) return false;
    throw e;
  }
};

const kindOf = (key: string) => (key.startsWith('w') ? ('webhook' as const) : ('broker' as const));

/** A breaker event as a fact, the action named from the trigger's definition at that version (scheme, host and path only). */
const factOf = async (e: StoredEvent, definitionAt: DefinitionAt): Promise<BreakerFact | undefined> => {
  const data = e.data as { version?: unknown; action?: unknown; at?: unknown };
  if ((e.type !== 'ActionFailed' && e.type !== 'ActionRecovered') || typeof data.version !== 'number' || typeof data.action !== 'string')
    return undefined;
  const triggerId = e.streamId.slice('breaker-'.length);
  const kind = kindOf(data.action);
  const index = Number(data.action.slice(1));
  const definition = await definitionAt(triggerId, data.version).catch(() => undefined);
  return {
    position: e.position,
    triggerId,
    type: e.type,
    version: data.version,
    action: { key: data.action, kind, name: actionName(definition, kind, index) },
    ...(typeof data.at === 'string' ? { at: data.at } : {}),
    recordedAt: new Date().toISOString(),
  };
};

export interface Followed {
  breakers: Checkpoint;
  triggers: Checkpoint;
  watching: Watching;
}

/**
 * One step of following the breakers' and the triggers' events from where the last step ended:
 * the alerts they raise, recorded; gives what is followed after it and the alerts recorded.
 */
export const raiseAlerts = async (
  store: EventStore,
  rules: AlertRules,
  definitionAt: DefinitionAt,
  from: Followed,
): Promise<{ followed: Followed; raised: Alert[] }> => {
  const raised: Alert[] = [];
  let { watching, breakers, triggers } = from;
  for (const e of await store.readCategory('breaker', breakers, READ_MAX)) {
    const fact = await factOf(e, definitionAt);
    if (fact) {
      const decided = onBreakerFact(watching, fact, rules);
      watching = decided.watching;
      if (decided.alert && (await recordAlert(store, decided.alert))) raised.push(decided.alert);
    }
    breakers = e.position;
  }
  for (const e of await store.readCategory('action_trigger', triggers, READ_MAX)) {
    const meta = e.metadata as { actor?: unknown; occurred_at?: unknown };
    if (e.type === 'TriggerDeactivated' && meta.actor === BREAKER_ACTOR) {
      const reason = (e.data as { reason?: unknown }).reason;
      const alert = deactivatedAlert(
        {
          position: e.position,
          triggerId: e.streamId.slice(TRIGGER_STREAM_PREFIX.length),
          ...(typeof reason === 'string' ? { reason } : {}),
          occurredAt: typeof meta.occurred_at === 'string' ? meta.occurred_at : new Date().toISOString(),
        },
        rules,
      );
      if (await recordAlert(store, alert)) raised.push(alert);
    }
    triggers = e.position;
  }
  return { followed: { breakers, triggers, watching: boundWatching(watching, MAX_WATCHED) }, raised };
};
