import { actionsOf } from '../../src/dispatch/plan';
import type { ActionPlan, SignalEnvelope } from '../../src/dispatch/types';
import type { TriggerDefinition } from '../../src/triggers/model/codecs';
import { MAX_DRY_RUN_BODY_CHARS } from '../../src/kernel/limits';
import { brokerEntries, brokerMessageOf, Brokers, brokerTargetProblem } from './broker-channel';
import { checkTarget, TARGET_REFUSED, TargetCheck } from '../webhook/transport';
import { WEBHOOK_USER_AGENT, webhookEntries, webhookRequestOf } from './webhook-channel';
import { AttemptEnded, prepareAction } from './attempt';
import { maskedDynamicValues } from './masked-values';
import { dynamicPathsIn } from './render';
import { brokerMessageView, MessageView } from './preview-broker';

/** What `webhook-signature` shows in a dry run: it depends on the secret and the send time. */
export const SIGNATURE_PLACEHOLDER = '(computed at send time)';

export interface PreviewOptions {
  readonly brokers: Brokers;
  /** A signing secret is configured: requests carry `webhook-signature`. */
  readonly signing: boolean;
  /** As the worker's transport: off means every target passes the SSRF guard. */
  readonly allowPrivateTargets: boolean;
  readonly allowedDynamicPaths: readonly string[];
  readonly dynamicModule: boolean;
  readonly defaultTimeoutSecs: number;
  /** Today's check of a webhook URL (webhook_url_patterns), as at write time; each attempt makes it again. */
  readonly urlProblem: (url: string) => string | undefined;
  readonly checkTarget?: (url: string) => Promise<TargetCheck>;
}

export interface RequestView {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  content_type: string;
}

export interface ActionPreview {
  kind: 'webhook' | 'broker';
  index: number;
  delivery_id: string;
  timeout_secs: number;
  request?: RequestView;
  /** Header names (lower case) whose values hold masked dynamic values. */
  masked_headers?: string[];
  message?: MessageView;
  /** Why a dispatch would not send this (now): the reason an attempt would end with. */
  refused?: string;
  error_type?: string;
  /** True when a dispatch would retry (the reason may pass), false when it fails at once. */
  retried?: boolean;
  body_omitted?: string;
  warnings: string[];
}

const refusal = (e: AttemptEnded) =>
  ({ refused: e.attempt.reason, error_type: e.attempt.errorType, retried: e.attempt.outcome === 'retry' });

/** The guard's word on a webhook's target, as the transport would give it. */
const targetProblem = async (o: PreviewOptions, url: string) => {
  if (o.allowPrivateTargets) return {};
  const check = await (o.checkTarget ?? checkTarget)(url);
  if (check.kind === 'refused') return { refused: TARGET_REFUSED, error_type: 'TargetRefused', retried: false };
  if (check.kind === 'unresolved') return { refused: `request failed: ${check.reason}`, error_type: 'WebhookUnreachable', retried: true };
  return {};
};

const previewWebhook = async (o: PreviewOptions, definition: TriggerDefinition, plan: ActionPlan, signal: SignalEnvelope, nowSecs: number) => {
  const p = await prepareAction(webhookEntries, definition, maskedDynamicValues(o), { plan, signal }, 1);
  const sign = o.signing ? () => SIGNATURE_PLACEHOLDER : undefined;
  const req = webhookRequestOf(p, { userAgent: WEBHOOK_USER_AGENT, timestampSecs: nowSecs, sign });
  const masked = Object.entries(p.action.headers ?? {}).filter(([, v]) => dynamicPathsIn([v]).length > 0).map(([k]) => k.toLowerCase());
  const urlProblem = o.urlProblem(req.url);
  const warnings = [...p.rendered.warnings, ...(urlProblem ? [`url ${urlProblem}: today's config would refuse this URL on write; a dispatch still sends to it`] : [])];
  const request: RequestView = { method: req.method, url: req.url, headers: req.headers, body: req.body ?? null, content_type: p.rendered.contentType };
  return { request, masked_headers: masked, ...(await targetProblem(o, req.url)), warnings };
};

const previewBroker = async (o: PreviewOptions, definition: TriggerDefinition, plan: ActionPlan, signal: SignalEnvelope) => {
  const p = await prepareAction(brokerEntries(o.brokers), definition, maskedDynamicValues(o), { plan, signal }, 1);
  const m = brokerMessageOf(o.brokers, p);
  const refused = await brokerTargetProblem(o.brokers, p, m, o);
  const message = brokerMessageView(p.action.name, m);
  return { message, warnings: p.rendered.warnings, ...(refused && refused.outcome !== 'delivered' ? { refused: refused.reason, error_type: refused.errorType, retried: refused.outcome === 'retry' } : {}) };
};

/** Keeps the answer bounded: bodies past MAX_DRY_RUN_BODY_CHARS in all are left out, and say so. */
const withinBudget = (budget: { left: number }) => (a: ActionPreview): ActionPreview => {
  const body = a.request?.body ?? a.message?.body ?? '';
  budget.left -= body.length;
  if (budget.left >= 0) return a;
  const body_omitted = `${body.length} characters, left out: a dry run shows at most ${MAX_DRY_RUN_BODY_CHARS} characters of bodies`;
  return { ...a, body_omitted, ...(a.request ? { request: { ...a.request, body: null } } : {}), ...(a.message ? { message: { ...a.message, body: null } } : {}) };
};

/**
 * Every request and message one trigger would send for one signal, built by the same steps as an
 * attempt (prepare with masked dynamic values → build the request or message), never sent.
 */
export const previewTrigger = async (o: PreviewOptions, trigger: { id: string; version: number; definition: TriggerDefinition },
  signal: SignalEnvelope, now: Date): Promise<ActionPreview[]> => {
  const nowSecs = Math.floor(now.getTime() / 1000);
  // Together: a webhook's DNS check may wait up to its time-out, and 100 of them in a row would add up.
  const previews = await Promise.all(actionsOf(trigger, signal.id, o.defaultTimeoutSecs).map(async (plan): Promise<ActionPreview> => {
    const head = { kind: plan.kind, index: plan.index, delivery_id: plan.deliveryId, timeout_secs: plan.timeoutSecs };
    try {
      const shown = plan.kind === 'webhook'
        ? await previewWebhook(o, trigger.definition, plan, signal, nowSecs)
        : await previewBroker(o, trigger.definition, plan, signal);
      return { ...head, ...shown };
    } catch (e) {
      if (!(e instanceof AttemptEnded)) throw e;
      return { ...head, ...refusal(e), warnings: [] };
    }
  }));
  return previews.map(withinBudget({ left: MAX_DRY_RUN_BODY_CHARS }));
};
