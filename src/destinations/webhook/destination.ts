import { MAX_WEBHOOKS_PER_TRIGGER } from '../../kernel/limits';
import type { Destination } from '../port/destination';
import { webhookChannel, WebhookOptions } from './channel';
import { storedWebhookCodec, Webhook, webhookCodec } from './codec';
import { webhooksSchema } from './openapi';

/** A signed HTTP request to a URL, per entry of a trigger's `webhooks`. */
export const webhookDestination: Destination<Webhook, [WebhookOptions]> = {
  kind: 'webhook',
  field: 'webhooks',
  maxPerTrigger: MAX_WEBHOOKS_PER_TRIGGER,
  codec: webhookCodec,
  stored: storedWebhookCodec,
  schema: webhooksSchema,
  channel: webhookChannel,
};
