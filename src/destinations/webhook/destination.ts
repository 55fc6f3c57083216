import { MAX_WEBHOOKS_PER_TRIGGER } from '../../kernel/limits';
import type { Destination } from '../port/destination';
import type { WebhookPolicy } from './policy';
import { WEBHOOK_USER_AGENT, webhookChannel, webhookEntries } from './channel';
import { storedWebhookCodec, Webhook, webhookCodec } from './codec';
import { webhookLimitsListed, webhookPaceLimitOf, webhookPaceOf } from './limits';
import { webhooksSchema, webhookViewSchemas } from './openapi';
import { WebhookView, webhookPreview } from './preview';
import { webhookConfigKeys, WebhookSettings, webhookSettingsOf } from './settings';
import { createWebhookTransport } from './transport';
import { matchesFromStart, webhookUrlProblem } from './url-rules';

/** webhook_url_patterns as a check of one URL; none configured: every URL. */
const urlAllowedBy = (patterns: readonly RegExp[]) =>
  patterns.length === 0 ? undefined : (url: string) => patterns.some((p) => matchesFromStart(p, url));

/** A signed HTTP request to a URL, per entry of a trigger's `webhooks`. */
export const webhookDestination: Destination<Webhook, typeof webhookConfigKeys, WebhookSettings, WebhookView, WebhookPolicy> = {
  kind: 'webhook',
  field: 'webhooks',
  maxPerTrigger: MAX_WEBHOOKS_PER_TRIGGER,
  configKeys: webhookConfigKeys,
  settingsOf: webhookSettingsOf,
  policyOf: (s) => ({ webhookUrlPatterns: s.urlPatterns, signingSecretNames: s.signingSecretNames }),
  codec: webhookCodec,
  stored: storedWebhookCodec,
  schema: webhooksSchema,
  components: () => ({}),
  viewSchemas: webhookViewSchemas,
  entries: () => webhookEntries,
  open: (s, shared) => {
    const transport = createWebhookTransport({ allowPrivateTargets: shared.allowPrivateTargets });
    const channel = webhookChannel({
      dispatcher: transport.dispatcher,
      secrets: s.secrets,
      userAgent: WEBHOOK_USER_AGENT,
      urlAllowed: urlAllowedBy(s.urlPatterns),
    });
    return { channel, close: transport.close };
  },
  preview: (s, shared) => {
    // The guard reports private hosts as `refused`; here only what else today's config says of the URL.
    const urlProblem = webhookUrlProblem({ webhookUrlPatterns: s.urlPatterns, allowPrivateTargets: true });
    return (p, nowSecs) => webhookPreview({ ...shared, secrets: s.secrets, urlProblem }, p, nowSecs);
  },
  brokerTypeOf: () => 'none',
  paceOf: (s, webhook) => webhookPaceOf(s.limits, webhook.url),
  paceLimitOf: (s, key) => webhookPaceLimitOf(s.limits, key),
  limits: (s) => webhookLimitsListed(s.limits),
};
