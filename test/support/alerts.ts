import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Alert, ALERT_TYPES, AlertMessage } from '../../src/model/alerts/alert';
import type { Received } from './receiver';

/** Alerts and digests as the service raises them, with fresh ids, for the sink tests. */
export const EVERY_TYPE = new Set(ALERT_TYPES);
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const sampleAlert = (over: Partial<Alert> = {}): Alert => ({
  id: `alert-${randomUUID()}`,
  type: 'action.failing',
  occurred_at: '2026-03-01T12:00:00.000Z',
  summary: 'orders-to-crm: webhook 0 (https://crm.example.com/hooks) failed 50 dispatches in a row',
  trigger_id: 't-orders',
  action: { key: 'w0', kind: 'webhook', name: 'webhook 0 (https://crm.example.com/hooks)' },
  failed_dispatches: 50,
  threshold: 100,
  percent: 50,
  first_failure_at: '2026-03-01T09:15:00.000Z',
  last_failure_at: '2026-03-01T11:59:30.000Z',
  link: 'https://at.example.com/admin/triggers/t-orders',
  ...over,
});

export const asMessage = (alert: Alert): AlertMessage => ({ kind: 'alert', alert });

export const sampleDigest = (alerts: Alert[]): Extract<AlertMessage, { kind: 'digest' }> => ({
  kind: 'digest',
  id: `digest-${randomUUID()}`,
  occurred_at: '2026-03-01T12:05:00.000Z',
  alerts,
  summary: `${alerts.length} alerts while the sink was at its rate limit`,
});

/** Alerts of `n` different triggers. */
export const manyAlerts = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    sampleAlert({ trigger_id: `t-${i}`, summary: `trigger ${i}: webhook 0 failed 50 dispatches in a row` }),
  );

/** What a send rejected with (fails the test when it resolved). */
export const rejectionOf = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('the send was taken, a rejection was expected');
};

/**
 * Each alert a webhook sink's receiver took, from single messages and digests alike, each
 * message's signature verified with the official Standard Webhooks library and its
 * `webhook-id` checked against the body (`from`: only requests received from then on).
 */
export const alertsAtSink = (received: readonly Received[], secret: string, from = 0): Alert[] =>
  received.flatMap((r) => {
    if (r.at < from) return [];
    const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
      type: string;
      data: Alert & { alerts?: Alert[] };
    };
    if (r.headers['webhook-id'] !== body.data.id)
      throw new Error(`webhook-id ${String(r.headers['webhook-id'])} is not the body's id ${body.data.id}`);
    return body.type === 'alerts.digest' ? body.data.alerts! : [body.data];
  });
