import { dynamicPathsIn } from '../../kernel/template-expressions';
import type { Prepared } from '../port/channel';
import type { Shown } from '../port/destination';
import { checkTarget, TARGET_REFUSED, TargetCheck } from '../port/target-guard';
import { WEBHOOK_USER_AGENT, webhookRequestOf } from './channel';
import type { Webhook } from './codec';
import type { SecretsFor } from './secrets';

/** What `webhook-signature` shows in a dry run: it depends on the secret and the send time. */
export const SIGNATURE_PLACEHOLDER = '(computed at send time)';

export interface WebhookPreviewOptions {
  /** The secrets a webhook would be signed with (a signature placeholder is shown, never a secret). */
  readonly secrets: SecretsFor;
  /** As the worker's transport: off means every target passes the SSRF guard. */
  readonly allowPrivateTargets: boolean;
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

/** A webhook action in a dry run: the request, and which headers hold masked dynamic values (lower case). */
export interface WebhookView extends Shown {
  readonly request: RequestView;
  readonly masked_headers: string[];
}

/** The guard's word on a webhook's target, as the transport would give it. */
const targetProblem = async (o: WebhookPreviewOptions, url: string) => {
  if (o.allowPrivateTargets) return {};
  const check = await (o.checkTarget ?? checkTarget)(url);
  if (check.kind === 'refused') return { refused: TARGET_REFUSED, error_type: 'TargetRefused', retried: false };
  if (check.kind === 'unresolved') return { refused: `request failed: ${check.reason}`, error_type: 'WebhookUnreachable', retried: true };
  return {};
};

/** The request a prepared webhook action would send (its dynamic values masked), and what would stop it. */
export const webhookPreview = async (o: WebhookPreviewOptions, p: Prepared<Webhook>, nowSecs: number): Promise<WebhookView> => {
  const secrets = o.secrets(p.action.signing_secret, nowSecs * 1000);
  const signing = 'missing' in secrets ? [] : secrets;
  const sign = signing.length > 0 ? () => signing.map(() => SIGNATURE_PLACEHOLDER).join(' ') : undefined;
  const req = webhookRequestOf(p, { userAgent: WEBHOOK_USER_AGENT, timestampSecs: nowSecs, sign });
  const masked = Object.entries(p.action.headers ?? {})
    .filter(([, v]) => dynamicPathsIn([v]).length > 0)
    .map(([k]) => k.toLowerCase());
  const urlProblem = o.urlProblem(req.url);
  const warnings = [
    ...p.rendered.warnings,
    ...(urlProblem ? [`url ${urlProblem}: today's config would refuse this URL on write; a dispatch still sends to it`] : []),
  ];
  const request: RequestView = {
    method: req.method,
    url: req.url,
    headers: req.headers,
    body: req.body ?? null,
    content_type: p.rendered.contentType,
  };
  const secretProblem = 'missing' in secrets ? { refused: secrets.missing, error_type: 'SigningSecret', retried: false } : {};
  return { request, masked_headers: masked, ...(await targetProblem(o, req.url)), ...secretProblem, warnings };
};
