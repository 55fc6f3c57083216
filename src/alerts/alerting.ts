import { randomUUID } from 'node:crypto';
import { Checkpoint, EventStore } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import type { Alert, Sink } from '../model/alerts/alert';
import type { AlertRules } from '../model/alerts/decide';
import { alertingEnds, Held, saveAlerting, takeAlerting } from '../model/alerts/alerting-lease';
import type { DefinitionAt } from '../model/triggers/definition-at';
import { Followed, raiseAlerts, recordAlert } from './raise';
import { BACKLOG_LOOK_MS, lookAtBacklogs } from './backlogs';
import type { DestinationSettings } from '../destinations/registry';
import type { Backlogs } from '../model/alerts/decide';
import { SinkOutcomes, sinkSender, SinkSender } from './send';

/** What the lease holder saves: how far it followed, the actions it watches, each sink's cursor (positions as decimal strings). */
export interface Progress {
  breakers: string;
  triggers: string;
  watching: Followed['watching'];
  sinks: Record<string, string>;
  backlogs?: Backlogs;
}

export interface AlertingOptions {
  readonly store: EventStore;
  readonly rules: AlertRules;
  readonly sinks: readonly Sink[];
  readonly definitionAt: DefinitionAt;
  /** The config's destinations, whose limits' backlogs are looked at every BACKLOG_LOOK_MS. */
  readonly destinations?: DestinationSettings;
  readonly backlogThreshold: number;
  readonly log: Logger;
  readonly outcomes: SinkOutcomes & { raised(alert: Alert): void };
  /** How often new breaker and trigger events are looked for, and sinks given what waits. */
  readonly pollMs?: number;
  readonly leaseMs?: number;
}

const text = (c: Checkpoint) => (c === 'start' ? 'start' : c.toString());
const checkpoint = (s: string | undefined): Checkpoint | undefined => (s === undefined ? undefined : s === 'start' ? 'start' : BigInt(s));

/**
 * Raises and sends the alerts, in one process among all those on the store (the one holding the
 * `alerting-lease`). A first start follows from the store's head: no alert for the past, and a
 * sink added later gets the alerts raised from then on. The progress is saved with each renewal
 * of the lease; what is done twice after a crash (a fact read again) records nothing twice.
 */
export const startAlerting = (o: AlertingOptions) => {
  const holder = `${process.pid}-${randomUUID()}`;
  const pollMs = o.pollMs ?? 250;
  const leaseMs = o.leaseMs ?? 10_000;
  let stopped = false;
  const stopping = new AbortController();
  let wake: () => void = () => undefined;
  // A stop that came while no pause was under way ends the next one at once (not up to half a lease later).
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      if (stopped) return r();
      const timer = setTimeout(r, ms);
      wake = () => {
        clearTimeout(timer);
        r();
      };
    });

  const startingProgress = async (saved: Progress | undefined): Promise<Progress> => {
    const head = async (category: 'breaker' | 'action_trigger' | 'alert') => text(await o.store.headPosition(category));
    const sinks: Record<string, string> = {};
    for (const s of o.sinks) sinks[s.name] = saved?.sinks[s.name] ?? (await head('alert'));
    return {
      breakers: saved?.breakers ?? (await head('breaker')),
      triggers: saved?.triggers ?? (await head('action_trigger')),
      watching: saved?.watching ?? {},
      sinks,
      backlogs: saved?.backlogs ?? {},
    };
  };

  const whileHolding = async (first: Held<Progress>) => {
    let held: Held<Progress> | undefined = first;
    let progress = await startingProgress(first.progress);
    const senders = new Map<string, SinkSender>(
      o.sinks.map((s) => [s.name, sinkSender(o.store, s, o.log, o.outcomes, checkpoint(progress.sinks[s.name]) ?? 'start')]),
    );
    // Each sink steps on its own: one that is slow to answer holds back neither the others nor the raising.
    const busy = new Map<string, Promise<void>>();
    const stepSinks = () => {
      for (const [name, sender] of senders) {
        if (busy.has(name)) continue;
        const step = sender
          .step(stopping.signal)
          .catch((e: unknown) => o.log.warn('alerts: a sink step failed; trying again', { sink: name, error: String(e) }))
          .finally(() => busy.delete(name));
        busy.set(name, step);
      }
    };
    let savedAt = 0;
    let savedAs = '';
    let lookedAt = 0;
    while (held && !stopped) {
      const { followed, raised } = await raiseAlerts(o.store, o.rules, o.definitionAt, {
        breakers: checkpoint(progress.breakers)!,
        triggers: checkpoint(progress.triggers)!,
        watching: progress.watching,
      });
      let backlogs = progress.backlogs ?? {};
      if (o.destinations && Date.now() - lookedAt >= BACKLOG_LOOK_MS) {
        lookedAt = Date.now();
        const looked = await lookAtBacklogs(o.store, o.destinations, o.backlogThreshold, o.rules, backlogs, (a) => recordAlert(o.store, a));
        backlogs = looked.backlogs;
        raised.push(...looked.raised);
      }
      raised.forEach(o.outcomes.raised);
      stepSinks();
      progress = {
        breakers: text(followed.breakers),
        triggers: text(followed.triggers),
        watching: followed.watching,
        sinks: Object.fromEntries([...senders].map(([name, s]) => [name, text(s.cursor())])),
        backlogs,
      };
      const now = Date.now();
      const changed = JSON.stringify(progress) !== savedAs;
      if (changed || now - savedAt > leaseMs / 3) {
        held = await saveAlerting(o.store, held, progress, leaseMs);
        savedAt = now;
        savedAs = JSON.stringify(progress);
      }
      if (raised.length === 0) await pause(pollMs);
    }
    await Promise.all(busy.values());
    progress = { ...progress, sinks: Object.fromEntries([...senders].map(([name, s]) => [name, text(s.cursor())])) };
    // On stop: saved with no time left, so another process takes over at once.
    if (held) await saveAlerting(o.store, held, progress, 0);
  };

  let warnedAt = 0;
  const running = (async () => {
    while (!stopped) {
      try {
        const held = await takeAlerting<Progress>(o.store, holder, leaseMs);
        if (held) await whileHolding(held);
        else await pause(Math.min(leaseMs / 2, Math.max(20, ((await alertingEnds(o.store)) ?? 0) - Date.now() + 20)));
      } catch (e) {
        // The store away (a PostgreSQL restart): one line a minute, not one a second.
        if (Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now();
          o.log.warn('alerts: a step failed; trying again', { error: e instanceof Error ? e.message : String(e) });
        }
        await pause(Math.min(leaseMs / 2, 1000));
      }
    }
  })();

  return {
    stop: async () => {
      stopped = true;
      stopping.abort();
      wake();
      await running;
    },
  };
};
