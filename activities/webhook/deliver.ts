import { Context } from '@temporalio/activity';
import { Dispatcher, request } from 'undici';
import { isRetryableStatus } from '../../src/dispatch/retry-schedule';
import { renderedHeadersProblem } from '../../src/triggers/header-rules';
import type { Webhook } from '../../src/triggers/codecs';
import { Attempt, Channel, fail, Prepared } from '../delivery/attempt';
import { retryAfterMs } from './retry-after';
import { signatureOf } from './signing';
import { isTargetRefused, TARGET_REFUSED } from './transport';

export interface WebhookOptions {
  /** The transport's agent: it holds the connections and the whole SSRF guard. */
  readonly dispatcher: Dispatcher;
  readonly signingSecret: string | undefined;
  readonly userAgent: string;
}

/** Header names are case-insensitive: the user's come first, ours (delivery identity) win. */
const mergeHeaders = (...sets: Array<Record<string, string>>) => {
  const out = new Map<string, string>();
  for (const set of sets) for (const [k, v] of Object.entries(set)) out.set(k.toLowerCase(), v);
  return Object.fromEntries(out); // own properties: a `__proto__` name stays a name
};

/** The request of one attempt: rendered headers, delivery identity and signature. */
const headersOf = (o: WebhookOptions, p: Prepared<Webhook>): Record<string, string> => {
  const userHeaders = p.renderMap(p.action.headers);
  // A value from the instance or a dynamic value may hold CR/LF: the request would never be valid.
  const problem = renderedHeadersProblem(userHeaders);
  if (problem) throw fail('WebhookHeader', problem);
  const timestamp = Math.floor(Date.now() / 1000);
  const { deliveryId } = p.plan;
  return mergeHeaders(
    { 'content-type': p.rendered.contentType, 'user-agent': o.userAgent },
    userHeaders,
    { 'webhook-id': deliveryId, 'webhook-timestamp': String(timestamp) },
    o.signingSecret ? { 'webhook-signature': signatureOf(o.signingSecret, deliveryId, timestamp, p.rendered.body) } : {},
  );
};

/** 2xx delivers; other statuses retry or not by their meaning, honouring `Retry-After`. */
const send = (o: WebhookOptions) => async (p: Prepared<Webhook>): Promise<Attempt> => {
  const headers = headersOf(o, p);
  const timeoutMs = p.plan.timeoutSecs * 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(new URL(p.action.url), {
      method: p.action.http_method, headers, dispatcher: o.dispatcher,
      body: p.action.http_method === 'GET' ? undefined : p.rendered.body,
      signal: AbortSignal.any([timeout, Context.current().cancellationSignal]),
      headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const statusCode = res.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', statusCode };
    const reason = `HTTP ${statusCode}`;
    if (!isRetryableStatus(statusCode)) return { outcome: 'fail', errorType: 'WebhookStatus', reason, statusCode };
    const retryAfter = retryAfterMs(res.headers['retry-after']);
    return { outcome: 'retry', errorType: 'WebhookStatus', reason, statusCode, ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) };
  } catch (e) {
    // The transport's guard refused the target: one fixed message, never the address.
    if (isTargetRefused(e)) return { outcome: 'fail', errorType: 'TargetRefused', reason: TARGET_REFUSED };
    const reason = timeout.aborted ? `no response within ${p.plan.timeoutSecs}s` : `request failed: ${(e as Error).message}`;
    return { outcome: 'retry', errorType: 'WebhookUnreachable', reason };
  }
};

/** A trigger's webhook entries: headers and payload hold templates. */
export const webhookChannel = (o: WebhookOptions): Channel<Webhook> => ({
  kind: 'webhook',
  pick: (d, index) => d.webhooks[index],
  templated: (d, w) => [d.payload, w.headers],
  send: send(o),
});
