import { Counter, Registry } from 'prom-client';

/** What the alerts record: by alert type and by sink name (both from a fixed set or the config, never a request). */
export interface AlertMetrics {
  raised(type: string): void;
  /** A message a sink took, holding `alerts` alerts (a digest: several). */
  sent(sink: string, alerts: number): void;
  /** A send that failed and will be tried again. */
  retried(sink: string): void;
  /** A message given up (a sink that refused it for good, or never answered within the retries' hour). */
  givenUp(sink: string, alerts: number): void;
}

export const createAlertMetrics = (registry: Registry, prefix: string): AlertMetrics => {
  const registers = [registry];
  const raised = new Counter({ name: `${prefix}alerts_raised_total`, help: 'Alerts raised, by type', labelNames: ['type'], registers });
  const messages = new Counter({
    name: `${prefix}alert_sends_total`,
    help: 'Sends of alert messages to sinks: sent, retried (failed, tried again), given_up',
    labelNames: ['sink', 'outcome'],
    registers,
  });
  const alerts = new Counter({
    name: `${prefix}alerts_sent_total`,
    help: 'Alerts a sink took (a digest counts each alert in it), or that were given up',
    labelNames: ['sink', 'outcome'],
    registers,
  });
  return {
    raised: (type) => raised.inc({ type }),
    sent: (sink, n) => {
      messages.inc({ sink, outcome: 'sent' });
      alerts.inc({ sink, outcome: 'sent' }, n);
    },
    retried: (sink) => messages.inc({ sink, outcome: 'retried' }),
    givenUp: (sink, n) => {
      messages.inc({ sink, outcome: 'given_up' });
      alerts.inc({ sink, outcome: 'given_up' }, n);
    },
  };
};

export const noAlertMetrics: AlertMetrics = {
  raised: () => undefined,
  sent: () => undefined,
  retried: () => undefined,
  givenUp: () => undefined,
};
