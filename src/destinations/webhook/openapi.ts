/** The OpenAPI schema of a trigger's `webhooks`, from the same constants and config policy the webhook codec checks with. */
import { MAX_WEBHOOKS_PER_TRIGGER } from '../../kernel/limits';
import { ALLOWED_KEY } from '../../kernel/openapi';
import { anyCase, entryPayloadSchema, Schema, SHOWN_STRINGS, TEMPLATED_MAP, timeoutSchema } from '../port/openapi';
import { SIGNATURE_PLACEHOLDER } from './preview';
import type { WebhookPolicy } from './policy';
import { HTTP_METHOD_ANY_CASE, HTTP_METHODS, MAX_URL_LENGTH } from './codec';
import { CLIENT_OWNED, HEADER_VALUE, SERVICE_OWNED, TOKEN } from './header-rules';

/** Header names are HTTP tokens the client does not own; values are what HTTP can carry (no CR, LF, NUL). */
const headersSchema: Schema = {
  type: 'object',
  propertyNames: {
    allOf: [
      { pattern: TOKEN.source },
      { not: { pattern: `^(?:${[...CLIENT_OWNED, ...SERVICE_OWNED].map(anyCase).join('|')})$|^${anyCase('proxy-')}` } },
      ALLOWED_KEY,
    ],
  },
  additionalProperties: { type: 'string', pattern: HEADER_VALUE },
  description: `${TEMPLATED_MAP}. Names set by the HTTP client or the service (Host, Content-Length, Proxy-*, webhook-id, …) are refused, as is a name repeated in another case`,
};

const urlSchema = (policy: WebhookPolicy): Schema => {
  const base = { type: 'string', maxLength: MAX_URL_LENGTH, description: 'An absolute http(s) URL (as WHATWG URL parses it)' };
  // Anchored at the start, as the API matches them (sticky: Python's re.match).
  const patterns = policy.webhookUrlPatterns.map((p) => `^(?:${p.source})`);
  if (patterns.length === 0) return { ...base, pattern: '^[Hh][Tt][Tt][Pp][Ss]?:' };
  if (patterns.length === 1) return { ...base, pattern: patterns[0], description: `${base.description}, allowed by webhook_url_patterns` };
  return { ...base, anyOf: patterns.map((pattern) => ({ pattern })), description: `${base.description}, allowed by webhook_url_patterns` };
};

/** Only where the config has `signing_secrets`: without one, no name can be given. */
const signingSecretSchema = (names: ReadonlySet<string>): Schema => ({
  type: 'string',
  enum: [...names],
  description:
    "A name in the config's signing_secrets: requests are signed with its secrets (one signature each during a rotation) instead of the global signing_secret. The secrets themselves are never sent or shown",
});

export const webhooksSchema = (policy: WebhookPolicy): Schema => ({
  type: 'array',
  maxItems: MAX_WEBHOOKS_PER_TRIGGER,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'http_method'],
    properties: {
      url: urlSchema(policy),
      http_method: {
        type: 'string',
        pattern: HTTP_METHOD_ANY_CASE,
        description: `${HTTP_METHODS.join(', ')}, in any case; stored upper-case`,
      },
      headers: headersSchema,
      timeout_secs: timeoutSchema(policy.maxWebhookTimeoutSecs),
      ...(policy.signingSecretNames?.size ? { signing_secret: signingSecretSchema(policy.signingSecretNames) } : {}),
      payload: entryPayloadSchema('webhook'),
    },
  },
});

/** What a dry run shows of a webhook action: the request, and which headers hold masked values. */
export const webhookViewSchemas = (): Record<string, Schema> => ({
  request: {
    type: 'object',
    required: ['method', 'url', 'headers', 'body', 'content_type'],
    properties: {
      method: { type: 'string' },
      url: { type: 'string' },
      headers: {
        ...SHOWN_STRINGS,
        description: `Every header as it would be sent. Dynamic values show as their {{ path }}; webhook-timestamp is the dry run's time; webhook-signature (with a signing secret) shows "${SIGNATURE_PLACEHOLDER}"`,
      },
      body: { type: ['string', 'null'], description: 'The exact bytes sent (null for GET, or when left out: body_omitted)' },
      content_type: { type: 'string' },
    },
  },
  masked_headers: {
    type: 'array',
    items: { type: 'string' },
    description: 'Headers (lower case) whose values hold masked dynamic values',
  },
});
