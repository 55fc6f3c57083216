import * as t from 'io-ts';
import { checked, described } from '../../kernel/closed';
import { checkExpressions } from '../../kernel/template-expressions';
import type { SharedPolicy } from './policy';

/** An action's `timeout_secs`: seconds, greater than 0, at most the config's limit for its kind. */
export const timeoutSecs = (max: number) =>
  checked(described(t.number, 'must be a number of seconds'), 'TimeoutSecs', (n) =>
    Number.isFinite(n) && n > 0 && n <= max ? undefined : `must be greater than 0 and at most ${max}`,
  );

/** The check of a templated string: only the expressions the config allows. */
export const templatedBy =
  (policy: Pick<SharedPolicy, 'allowedDynamicPaths'>) =>
  (v: string): string | undefined =>
    checkExpressions(v, policy.allowedDynamicPaths);

/** A literal host a trigger wrote that names this machine's networks. */
export const PRIVATE_HOST_PROBLEM = 'must not be a loopback or private address or localhost (allow_private_targets is off)';
