import { isIP } from 'node:net';
import { bareHost, isLocalHostSpelling } from '../../kernel/hosts';
import type { WebhookPolicy } from './policy';
import { PRIVATE_HOST_PROBLEM } from '../port/entry-rules';

/** What a URL is checked against. */
type UrlPolicy = Pick<WebhookPolicy, 'allowPrivateTargets' | 'webhookUrlPatterns'>;

/** A DNS name as the URL parser leaves it (lower case, IDNs as `xn--`): labels of 1-63 characters. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const isDnsName = (host: string) => host.length > 0 && host.length <= 253 && host.split('.').every((l) => LABEL.test(l));

/** A sticky pattern matches from the start of the URL only (`re.match`); reset, since `test` moves it. */
export const matchesFromStart = (pattern: RegExp, url: string) => {
  pattern.lastIndex = 0;
  return pattern.test(url);
};

const hostProblem = (url: URL, policy: UrlPolicy): string | undefined => {
  const host = bareHost(url.hostname);
  if (!isIP(host) && !isDnsName(host)) return 'must name a valid host';
  if (policy.allowPrivateTargets) return undefined;
  // The URL parser has already turned `2130706433`, `0x7f.1` and `[::ffff:127.0.0.1]` into addresses.
  return isLocalHostSpelling(host) ? PRIVATE_HOST_PROBLEM : undefined;
};

/** The problem with a webhook URL (its length checked) under a policy, or undefined: syntax, host, then patterns. */
export const webhookUrlProblem =
  (policy: UrlPolicy) =>
  (s: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return 'must be an absolute http(s) URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http(s) URL';
    // Credentials would sit in every stored version, and `https://allowed.example@evil.org/` fools a pattern.
    if (url.username !== '' || url.password !== '') return 'must not contain credentials (send them in a header)';
    const host = hostProblem(url, policy);
    if (host) return host;
    const patterns = policy.webhookUrlPatterns;
    if (patterns.length > 0 && !patterns.some((p) => matchesFromStart(p, s))) return 'is not allowed by webhook_url_patterns';
    return undefined;
  };
