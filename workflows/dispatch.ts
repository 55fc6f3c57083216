import {
  ActivityFailure, ApplicationFailure, defineQuery, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Activities } from '../activities';
import type { ActionOutcome, ActionPlan, DispatchInput, DispatchStatus, FailureDetails, RetrySettings } from '../src/dispatch/types';

export const statusQuery = defineQuery<DispatchStatus>('status');
export const TriggerIds = defineSearchAttributeKey('TriggerIds', SearchAttributeType.KEYWORD_LIST);

/** Extra time Temporal allows an attempt beyond `timeout_secs`, so the activity (which cuts the
 * request at `timeout_secs`) can report why; Temporal's own timeout covers a dead worker. */
const REPORT_GRACE_SECS = 1;

/**
 * Finding the matching triggers is a quick read of the worker's own read model: a local
 * activity (no round trip through the server), retried until it works.
 */
const { planActions } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const actionActivities = (plan: ActionPlan, retry: RetrySettings) => proxyActivities<Activities>({
  activityId: plan.deliveryId,
  startToCloseTimeout: `${Math.ceil((plan.timeoutSecs + REPORT_GRACE_SECS) * 1000)} milliseconds`,
  retry: {
    initialInterval: `${Math.round(retry.initialIntervalSecs * 1000)} milliseconds`,
    backoffCoefficient: retry.backoffCoefficient,
    maximumInterval: `${Math.round(retry.maxIntervalSecs * 1000)} milliseconds`,
    maximumAttempts: retry.maxAttempts,
  },
});

const runAction = async (input: DispatchInput, plan: ActionPlan, outcome: ActionOutcome) => {
  const activities = actionActivities(plan, input.retry);
  try {
    const args = { plan, signal: input.signal, retry: input.retry };
    const receipt = plan.kind === 'webhook' ? await activities.deliverWebhook(args) : await activities.publishToBroker(args);
    Object.assign(outcome, { state: 'delivered', attempts: receipt.attempt, statusCode: receipt.statusCode, warnings: receipt.warnings });
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as FailureDetails | undefined) : undefined;
    Object.assign(outcome, {
      state: 'failed',
      attempts: details?.attempt ?? outcome.attempts,
      statusCode: details?.statusCode,
      lastError: cause instanceof Error ? cause.message : String(cause),
    });
  }
};

/**
 * One workflow per accepted signal (id `signal-<signal id>`): find the active triggers that
 * match, then run every action concurrently, each its own activity with its own time-out and
 * retries. A failing action never stops the others; the result lists every outcome.
 */
export async function dispatchSignal(input: DispatchInput): Promise<DispatchStatus> {
  const status: DispatchStatus = { signalId: input.signal.id, state: 'matching', triggers: [], actions: [] };
  setHandler(statusQuery, () => status);
  const plan = await planActions(input.signal);
  status.triggers = plan.triggers;
  status.actions = plan.actions.map((a) => ({ ...a, state: 'pending', attempts: 0, warnings: [] }));
  if (plan.triggers.length > 0) upsertSearchAttributes([{ key: TriggerIds, value: plan.triggers.map((t) => t.triggerId) }]);
  status.state = 'running';
  await Promise.all(plan.actions.map((action, i) => runAction(input, action, status.actions[i]!)));
  status.state = 'completed';
  return status;
}
