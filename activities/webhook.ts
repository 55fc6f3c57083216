import { Context } from '@temporalio/activity';
import { Dispatcher, request } from 'undici';
import type { DeliveryReceipt } from '../src/dispatch/types';
import { Logger } from '../src/logger';
import { renderedHeadersProblem } from '../src/triggers/header-rules';
import { ActionArgs, attemptOf, loadAction, ActionDeps, failure, rendering } from './action';
import { renderBody, renderStringMap } from './render';
import { backoffMs, isRetryableStatus, retryAfterMs } from './retry';
import { signatureOf } from './signing';
import { isTargetRefused, TARGET_REFUSED } from './webhook/transport';

export interface WebhookDeps extends ActionDeps {
  readonly dispatcher: Dispatcher;
  readonly signingSecret: string | undefined;
  readonly userAgent: string;
  readonly log: Logger;
}

/** Header names are case-insensitive: the user's come first, ours (delivery identity) win. */
const mergeHeaders = (...sets: Array<Record<string, string>>) => {
  const out = new Map<string, string>();
  for (const set of sets) for (const [k, v] of Object.entries(set)) out.set(k.toLowerCase(), v);
  return Object.fromEntries(out); // own properties: a `__proto__` name stays a name
};

/** Sends one webhook attempt. 2xx succeeds; the thrown failure says whether to retry and when. */
export const createDeliverWebhook = (deps: WebhookDeps) => async (args: ActionArgs): Promise<DeliveryReceipt> => {
  const { plan, signal, retry } = args;
  const attempt = attemptOf(args);
  const { definition, dynamic } = await loadAction(deps, args, attempt, (d) => {
    const webhook = d.webhooks[plan.index];
    return webhook && [d.payload, webhook.headers];
  });
  const webhook = definition.webhooks[plan.index]!;
  const warnings: string[] = [];
  const [rendered, userHeaders] = rendering(attempt, () => [
    renderBody(definition.payload, signal, plan.triggerId, dynamic),
    renderStringMap(webhook.headers, signal.instance, dynamic, warnings)] as const);
  const timestamp = Math.floor(Date.now() / 1000);
  // A value from the instance or a dynamic value may hold CR/LF: the request would never be valid.
  const headerProblem = renderedHeadersProblem(userHeaders);
  if (headerProblem) throw failure(headerProblem, 'WebhookHeader', { attempt }, false);
  const headers = mergeHeaders(
    { 'content-type': rendered.contentType, 'user-agent': deps.userAgent },
    userHeaders,
    { 'webhook-id': plan.deliveryId, 'webhook-timestamp': String(timestamp) },
    deps.signingSecret ? { 'webhook-signature': signatureOf(deps.signingSecret, plan.deliveryId, timestamp, rendered.body) } : {},
  );
  const timeoutMs = plan.timeoutSecs * 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const started = Date.now();
  let statusCode: number;
  let retryAfter: number | undefined;
  try {
    const res = await request(new URL(webhook.url), {
      method: webhook.http_method, headers, dispatcher: deps.dispatcher,
      body: webhook.http_method === 'GET' ? undefined : rendered.body,
      signal: AbortSignal.any([timeout, Context.current().cancellationSignal]),
      headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
    statusCode = res.statusCode;
    retryAfter = retryAfterMs(res.headers['retry-after']);
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
  } catch (e) {
    // The transport's guard refused the target: one fixed message, never the address.
    if (isTargetRefused(e)) throw failure(TARGET_REFUSED, 'TargetRefused', { attempt }, false);
    const reason = timeout.aborted ? `no response within ${plan.timeoutSecs}s` : `request failed: ${(e as Error).message}`;
    deps.log.warn('webhook attempt failed', { delivery_id: plan.deliveryId, attempt, reason });
    throw failure(reason, 'WebhookUnreachable', { attempt }, true, backoffMs(attempt, retry));
  }
  deps.log.info('webhook attempt', { delivery_id: plan.deliveryId, attempt, status: statusCode, ms: Date.now() - started });
  if (statusCode >= 200 && statusCode < 300) return { statusCode, attempt, warnings: [...rendered.warnings, ...warnings] };
  const retryable = isRetryableStatus(statusCode);
  throw failure(`HTTP ${statusCode}`, 'WebhookStatus', { attempt, statusCode }, retryable, retryAfter ?? backoffMs(attempt, retry));
};

