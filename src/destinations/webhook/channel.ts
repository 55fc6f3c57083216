import { Context } from '@temporalio/activity';
import { Dispatcher, request } from 'undici';
import { isRetryableStatus } from '../../dispatch/retry-schedule';
import { renderedHeadersProblem } from './header-rules';
import type { HttpMethod, Webhook } from './codec';
import type { Attempt } from '../../dispatch/types';
import { Channel, Entries, fail, payloadOf, Prepared } from '../port/channel';
import { retryAfterMs } from './retry-after';
import { signaturesOf } from './signing';
import type { SecretsFor } from './secrets';
import { isTargetRefused, TARGET_REFUSED } from '../port/target-guard';
import { SpanKind } from '@opentelemetry/api';
import { inOutboundSpan, webhookAttributes } from '../../observability/outbound-span';
import { MAX_WEBHOOK_ANSWER_BYTES } from '../../kernel/limits';

/** The User-Agent of every webhook request. */
export const WEBHOOK_USER_AGENT = 'action-triggers/0.1 (+webhook)';

export interface WebhookOptions {
  /** The transport's agent: it holds the connections and the whole SSRF guard. */
  readonly dispatcher: Dispatcher;
  /** The secrets a webhook is signed with now (none: unsigned). */
  readonly secrets: SecretsFor;
  readonly userAgent: string;
  /** webhook_url_patterns as configured now (absent: any URL); checked again at each attempt. */
  readonly urlAllowed?: (url: string) => boolean;
}

/** Header names are case-insensitive: the user's come first, ours (delivery identity) win. */
const mergeHeaders = (...sets: Array<Record<string, string>>) => {
  const out = new Map<string, string>();
  for (const set of sets) for (const [k, v] of Object.entries(set)) out.set(k.toLowerCase(), v);
  return Object.fromEntries(out); // own properties: a `__proto__` name stays a name
};

/** What one attempt sends: built before the call, by the real send and by the dry run alike. */
export interface WebhookRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Absent for GET. */
  readonly body: string | undefined;
}

/** What a request's delivery identity is made of: the time, and how the body is signed (none without a secret). */
export interface RequestIdentity {
  readonly userAgent: string;
  readonly timestampSecs: number;
  readonly sign: ((deliveryId: string, timestampSecs: number, body: string) => string) | undefined;
}

/** The request of one attempt: rendered headers, delivery identity and signature. Pure but for renderMap's checks. */
export const webhookRequestOf = (p: Prepared<Webhook>, identity: RequestIdentity): WebhookRequest => {
  const userHeaders = p.renderMap(p.action.headers);
  // A value from the instance or a dynamic value may hold CR/LF: the request would never be valid.
  const problem = renderedHeadersProblem(userHeaders);
  if (problem) throw fail('WebhookHeader', problem);
  const { deliveryId } = p.plan;
  const { timestampSecs, sign } = identity;
  const headers = mergeHeaders(
    { 'content-type': p.rendered.contentType, 'user-agent': identity.userAgent },
    userHeaders,
    { 'webhook-id': deliveryId, 'webhook-timestamp': String(timestampSecs) },
    sign ? { 'webhook-signature': sign(deliveryId, timestampSecs, p.rendered.body) } : {},
  );
  const method = p.action.http_method;
  return { method, url: p.action.url, headers, body: method === 'GET' ? undefined : p.rendered.body };
};

/** The secrets' signatures, one per secret (several during a rotation); no secret, no signature. */
export const signerOf = (secrets: readonly string[]): RequestIdentity['sign'] =>
  secrets.length > 0 ? (id, ts, body) => signaturesOf(secrets, id, ts, body) : undefined;

/**
 * 2xx delivers; other statuses retry or not by their meaning, honouring `Retry-After`. Tracing on,
 * the request is a CLIENT span and carries its `traceparent`, so the receiver can join the trace.
 */
const send =
  (o: WebhookOptions) =>
  (p: Prepared<Webhook>): Promise<Attempt> => {
    // The patterns may have tightened since the trigger was written: today's config decides.
    if (o.urlAllowed && !o.urlAllowed(p.action.url)) {
      return Promise.resolve({
        outcome: 'fail',
        errorType: 'WebhookUrlRefused',
        reason: 'the webhook URL is not allowed by webhook_url_patterns (as configured now)',
      });
    }
    const now = Date.now();
    const secrets = o.secrets(p.action.signing_secret, now);
    if ('missing' in secrets) return Promise.resolve({ outcome: 'fail', errorType: 'SigningSecret', reason: secrets.missing });
    const req = webhookRequestOf(p, { userAgent: o.userAgent, timestampSecs: Math.floor(now / 1000), sign: signerOf(secrets) });
    return inOutboundSpan(req.method, SpanKind.CLIENT, webhookAttributes(req.method, req.url), (traceHeaders) =>
      sendRequest(o, p, { ...req, headers: { ...req.headers, ...traceHeaders } }),
    );
  };

const sendRequest = async (o: WebhookOptions, p: Prepared<Webhook>, req: WebhookRequest): Promise<Attempt> => {
  const timeoutMs = p.plan.timeoutSecs * 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(new URL(req.url), {
      method: req.method,
      headers: req.headers,
      dispatcher: o.dispatcher,
      body: req.body,
      signal: AbortSignal.any([timeout, Context.current().cancellationSignal]),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump({ limit: MAX_WEBHOOK_ANSWER_BYTES }).catch(() => undefined);
    const statusCode = res.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', statusCode };
    const reason = `HTTP ${statusCode}`;
    if (!isRetryableStatus(statusCode)) return { outcome: 'fail', errorType: 'WebhookStatus', reason, statusCode };
    const retryAfter = retryAfterMs(res.headers['retry-after']);
    return {
      outcome: 'retry',
      errorType: 'WebhookStatus',
      reason,
      statusCode,
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    };
  } catch (e) {
    // The transport's guard refused the target: one fixed message, never the address.
    if (isTargetRefused(e)) return { outcome: 'fail', errorType: 'TargetRefused', reason: TARGET_REFUSED };
    const reason = timeout.aborted ? `no response within ${p.plan.timeoutSecs}s` : `request failed: ${(e as Error).message}`;
    return { outcome: 'retry', errorType: 'WebhookUnreachable', reason };
  }
};

/** A trigger's webhook entries: headers and the payload (the entry's own, else the trigger's) hold templates. */
export const webhookEntries: Entries<Webhook> = {
  kind: 'webhook',
  // The trigger codec decoded each entry with webhookCodec when the trigger was written.
  pick: (d, index) => d.webhooks[index] as Webhook | undefined,
  payload: payloadOf,
  templated: (d, w) => [payloadOf(d, w), w.headers],
};

export const webhookChannel = (o: WebhookOptions): Channel<Webhook> => ({ ...webhookEntries, send: send(o) });
