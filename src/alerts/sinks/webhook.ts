/** The webhook sink: a Standard Webhooks request, signed as webhook actions are, with the sink's own secret. */
import type { AlertMessage, Sink } from '../../model/alerts/alert';
import { openHttp, postJson } from './post';
import type { WebhookSinkSettings } from '../../config/alerts/settings';
import { signatureOf } from '../../destinations/registry';
import { identityOf } from './identity';

/** The digest's event type: not an alert type, so a receiver that switches on `type` sees it is a list. */
export const DIGEST_TYPE = 'alerts.digest';

/**
 * The Standard Webhooks payload (`type`, `timestamp`, `data`): an alert as itself, a digest as
 * its id, summary and alerts. The `webhook-id` is the alert's (or digest's) id, stable when it
 * is sent again, so a receiver drops a repeat.
 */
export const webhookPayloadOf = (message: AlertMessage): { id: string; body: string } =>
  message.kind === 'alert'
    ? {
        id: message.alert.id,
        body: JSON.stringify({ type: message.alert.type, timestamp: message.alert.occurred_at, data: message.alert }),
      }
    : {
        id: message.id,
        body: JSON.stringify({
          type: DIGEST_TYPE,
          timestamp: message.occurred_at,
          data: { id: message.id, summary: message.summary, alerts: message.alerts },
        }),
      };

export const createWebhookSink = (settings: WebhookSinkSettings): Sink => {
  const http = openHttp();
  return {
    ...identityOf(settings),
    send: async (message, signal) => {
      const { id, body } = webhookPayloadOf(message);
      // The time of this attempt: receivers refuse a signature a few minutes old.
      const timestampSecs = Math.floor(Date.now() / 1000);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(timestampSecs),
        'webhook-signature': signatureOf(settings.secret, id, timestampSecs, body),
      };
      await postJson(http.dispatcher, { url: settings.url, headers, body }, signal);
    },
    close: http.close,
  };
};
