import * as t from 'io-ts';
import { checked, closed, codePoints, described, storedOneOf, storedShape } from '../../kernel/closed';
import type { WebhookPolicy } from './policy';
import { templatedBy, timeoutSecs } from '../port/entry-rules';
import { webhookUrlProblem } from './url-rules';
import { headerMap } from './header-rules';
import { templatedJson } from '../../kernel/templated-json';
import type { JsonValue } from '../../kernel/json-value';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const MAX_URL_LENGTH = 2048;
/** An HTTP method name in any ASCII case, e.g. `[Pp][Oo][Ss][Tt]`: what `http_method` accepts. */
export const HTTP_METHOD_ANY_CASE = `^(${HTTP_METHODS.map((m) => [...m].map((ch) => `[${ch}${ch.toLowerCase()}]`).join('')).join('|')})$`;
const HTTP_METHOD_ANY_CASE_RE = new RegExp(HTTP_METHOD_ANY_CASE);

/** One entry of a trigger's `webhooks`. */
export interface Webhook {
  url: string;
  http_method: HttpMethod;
  headers?: Record<string, string>;
  timeout_secs?: number;
  /** A name in the config's `signing_secrets`: signed with its secrets instead of the global one. Never the secret itself. */
  signing_secret?: string;
  /** This webhook's own payload template: sent instead of the trigger's. */
  payload?: JsonValue;
}

const HttpMethodIn = new t.Type<HttpMethod, HttpMethod, unknown>(
  'HttpMethod',
  (u): u is HttpMethod => HTTP_METHODS.includes(u as HttpMethod),
  (u, c) =>
    typeof u === 'string' && HTTP_METHOD_ANY_CASE_RE.test(u)
      ? t.success(u.toUpperCase() as HttpMethod)
      : t.failure(u, c, `must be one of ${HTTP_METHODS.join(', ')}`),
  t.identity,
);

const signingSecretProblem =
  (policy: WebhookPolicy) =>
  (name: string): string | undefined =>
    policy.signingSecretNames === undefined || policy.signingSecretNames.has(name)
      ? undefined
      : policy.signingSecretNames.size === 0
        ? "must name an entry of the config's signing_secrets, which has none"
        : `must name an entry of the config's signing_secrets (${[...policy.signingSecretNames].join(', ')})`;

const urlProblem =
  (policy: WebhookPolicy) =>
  (s: string): string | undefined =>
    codePoints(s) > MAX_URL_LENGTH ? `must be at most ${MAX_URL_LENGTH} characters` : webhookUrlProblem(policy)(s);

/** The codec of one `webhooks` entry, checking everything the config constrains. */
export const webhookCodec = (policy: WebhookPolicy) =>
  closed(
    'Webhook',
    { url: checked(described(t.string, 'must be a string'), 'Url', urlProblem(policy)), http_method: HttpMethodIn },
    {
      headers: headerMap(templatedBy(policy)),
      timeout_secs: timeoutSecs(policy.maxWebhookTimeoutSecs),
      signing_secret: checked(described(t.string, 'must be a string'), 'SigningSecretName', signingSecretProblem(policy)),
      payload: templatedJson(policy.allowedDynamicPaths),
    },
    { nullable: ['payload'] },
  );

/** A `webhooks` entry as stored events hold it: structural, never stricter than what was ever written. */
export const storedWebhookCodec = storedShape(
  { url: t.string, http_method: storedOneOf<HttpMethod>('HttpMethod', HTTP_METHODS, (s) => s.toUpperCase()) },
  { headers: t.record(t.string, t.string), timeout_secs: t.number, signing_secret: t.string, payload: templatedJson(undefined) },
);
