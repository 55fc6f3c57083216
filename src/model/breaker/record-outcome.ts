import * as E from 'fp-ts/Either';
import type { ActionPlan } from '../../dispatch/types';
import { boundText } from '../../dispatch/bounds';
import { EventStore } from '../../event-store/port';
import { handleCommand } from '../triggers/handle-command';
import { decide } from '../triggers/decide';
import { streamOf } from '../triggers/events';
import type { Logger } from '../../kernel/logger';
import { BreakerSettings, onDelivered, onFailure, Trip } from './state';
import { recordOutcome } from './stream';
import { actionKeyOf, actionName, BREAKER_ACTOR, reasonOf } from './reason';
import type { Attempt } from '../../dispatch/types';
import type { DefinitionAt } from '../triggers/definition-at';

/** Records how an attempt ended; never throws, and never holds the attempt up for long. */
export type OutcomeRecorder = (plan: ActionPlan, result: Attempt, final: boolean) => Promise<void>;

export interface BreakerDeps {
  readonly store: EventStore;
  readonly definitionAt: DefinitionAt;
  readonly settings: BreakerSettings;
  readonly log: Logger;
  readonly now?: () => Date;
}

/**
 * The attempt's time budget is Temporal's (timeout_secs plus a grace): a breaker write slower
 * than this goes on in the background rather than let Temporal time the attempt out and send again.
 */
const WAIT_MS = 3000;

/** Deactivates the trigger at the version that failed; a trigger changed, inactive or deleted since is left alone. */
const deactivate = async (deps: BreakerDeps, plan: ActionPlan, trip: Trip, lastError: string, now: Date) => {
  const definition = await deps.definitionAt(plan.triggerId, plan.version);
  const action = actionName(definition, plan.kind, plan.index);
  const reason = reasonOf(action, trip, boundText(lastError), deps.settings.failingForMs);
  const outcome = await handleCommand(
    deps.store,
    streamOf(plan.triggerId),
    (state) => decide({ type: 'DeactivateTrigger', data: { trigger_id: plan.triggerId, reason } }, state),
    { expectedVersion: plan.version, metadata: { actor: BREAKER_ACTOR, request_id: plan.deliveryId, occurred_at: now.toISOString() } },
  );
  const where = { trigger_id: plan.triggerId, version: plan.version, action };
  if (E.isLeft(outcome))
    return deps.log.info('circuit breaker: trigger changed or deleted since the dispatch; left as it is', {
      ...where,
      error: outcome.left._tag,
    });
  if (outcome.right.events.length === 0) return deps.log.info('circuit breaker: trigger already inactive', where);
  deps.log.warn('trigger deactivated by circuit breaker', { ...where, reason, rule: trip.rule });
};

const record = async (deps: BreakerDeps, plan: ActionPlan, result: Attempt, final: boolean) => {
  const action = actionKeyOf(plan.kind, plan.index);
  if (result.outcome === 'delivered') {
    // A healthy trigger: one read, no write.
    await recordOutcome(deps.store, plan.triggerId, (state) => ({ events: onDelivered(state, plan.version, action) }));
    return;
  }
  if (!final) return;
  const now = deps.now?.() ?? new Date();
  const gone = plan.kind === 'webhook' && result.statusCode === 410;
  const decided = await recordOutcome(deps.store, plan.triggerId, (state) =>
    onFailure(state, { version: plan.version, action, at: now, gone }, deps.settings),
  );
  if (decided.trip) await deactivate(deps, plan, decided.trip, result.reason, now);
};

/**
 * The circuit breaker's hook into every attempt (regular or local activity alike): final
 * failures and deliveries go to the trigger's breaker stream, and a tripped breaker
 * deactivates the trigger. A fault here is logged; it never fails or repeats a delivery.
 */
export const createBreaker =
  (deps: BreakerDeps): OutcomeRecorder =>
  async (plan, result, final) => {
    const where = { trigger_id: plan.triggerId, delivery_id: plan.deliveryId };
    const recording = record(deps, plan, result, final).catch((e: unknown) =>
      deps.log.error('circuit breaker: outcome not recorded', { ...where, error: e instanceof Error ? e.message : String(e) }),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((r) => {
      timer = setTimeout(() => {
        deps.log.warn('circuit breaker: still recording; the attempt ends without waiting', where);
        r();
      }, WAIT_MS);
    });
    await Promise.race([recording, late]);
    clearTimeout(timer);
  };
