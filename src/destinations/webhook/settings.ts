import * as t from 'io-ts';
import { arrayOf, checked, described, NonEmptyString } from '../../kernel/closed';
import type { FieldError } from '../../kernel/field-errors';
import type { KindSettings, SectionOf, StartFiles } from '../port/destination';
import { WebhookLimitList, webhookLimitListOf, WebhookLimits } from './limits';
import { secretsFor, SecretsFor, signingKeysOf, signingSecretProblem, SigningSecretsConfig } from './secrets';

const regex = checked(described(t.string, 'must be a string'), 'RegExp', (s) => {
  try {
    new RegExp(s);
    return undefined;
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message}`;
  }
});

/** The webhook kind's keys of the config file. */
export const webhookConfigKeys = {
  webhook_url_patterns: arrayOf(regex),
  signing_secret: NonEmptyString,
  signing_secrets: SigningSecretsConfig,
  webhook_limits: WebhookLimits,
};

/** What the webhook kind keeps from its keys, read once at start. */
export interface WebhookSettings {
  /**
   * `webhook_url_patterns`; empty means every http(s) URL. Sticky (flag `y`): a pattern must match
   * from the start of the URL, as Python's `re.match` does; it need not match to the end.
   */
  readonly urlPatterns: readonly RegExp[];
  /** The secrets a webhook is signed with now: its named ones (files read at start), else `signing_secret`. */
  readonly secrets: SecretsFor;
  /** The names of `signing_secrets`, which a webhook's `signing_secret` may name. */
  readonly signingSecretNames: ReadonlySet<string>;
  /** `webhook_limits`: the limits per receiver, by URL prefix (the operator's; no trigger sets one). */
  readonly limits: WebhookLimitList;
}

/** The settings, and every problem of the keys by path: a secret that cannot sign, a file that cannot be read. */
export const webhookSettingsOf = (section: SectionOf<typeof webhookConfigKeys>, files: StartFiles): KindSettings<WebhookSettings> => {
  const named = signingKeysOf(section.signing_secrets ?? {}, files.read);
  const errors: FieldError[] = [...named.errors];
  const globalProblem = section.signing_secret === undefined ? undefined : signingSecretProblem(section.signing_secret);
  if (globalProblem) errors.push({ path: 'signing_secret', message: globalProblem });
  return {
    settings: {
      urlPatterns: (section.webhook_url_patterns ?? []).map((p) => new RegExp(p, 'y')),
      secrets: secretsFor(section.signing_secret, named.keys),
      signingSecretNames: new Set(Object.keys(section.signing_secrets ?? {})),
      limits: webhookLimitListOf(section.webhook_limits ?? []),
    },
    errors,
  };
};
