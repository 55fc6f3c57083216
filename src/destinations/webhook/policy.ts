import type { SharedPolicy } from '../port/policy';

/** What the config allows a trigger's webhooks. */
export interface WebhookPolicy extends SharedPolicy {
  /**
   * Empty means every http(s) URL is allowed. Sticky (flag `y`): a pattern must match from the
   * start of the URL, as Python's `re.match` does; it need not match to the end.
   */
  readonly webhookUrlPatterns: readonly RegExp[];
  /** The names of the config's `signing_secrets`; undefined means any name (reading back stored events). */
  readonly signingSecretNames?: ReadonlySet<string>;
}
