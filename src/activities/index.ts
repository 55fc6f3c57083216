import { CancelledFailure, Context } from '@temporalio/activity';
import { breakerSettingsOf, Config } from '../config';
import { EventStore } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { withLogFields } from '../kernel/log-context';
import type { DeliveryReceipt } from '../dispatch/types';
import { boundWarnings } from '../dispatch/bounds';
import { PaceHold, PipelineDeps, runAttempt } from '../delivery/attempt';
import type { ActionArgs, DispatchActivities } from '../dispatch/activities';
import type { Channel } from '../destinations/port/channel';
import { createDefinitionAt } from '../model/triggers/definition-at';
import { createDeliveredLedger } from '../delivery/delivered-ledger';
import { createBreaker } from '../model/breaker/record-outcome';
import { DynamicValueSource } from '../delivery/dynamic-values';
import { turnActivities } from '../ordering/turn-activities';
import type { TurnArgs } from '../dispatch/ordering';
import { Channels, firstAttempts } from '../delivery/first-attempts';
import { createSlots } from '../kernel/slots';
import { FIRST_ATTEMPT_CONCURRENCY } from '../kernel/limits';
import type { Metrics } from '../observability/metrics';
import { Held, paceActivities, PaceActivities } from '../pacing/pace-activities';
import { SEND_WAIT_MAX_SECS } from '../dispatch/pacing';
import { paceLimitOf } from '../destinations/registry';

export interface ActivityDeps {
  readonly config: Config;
  readonly store: EventStore;
  /** Each kind's channel, on the clients the worker opened for it. */
  readonly channels: Channels;
  readonly dynamicValues: DynamicValueSource;
  readonly log: Logger;
  readonly metrics?: Metrics;
}

type EndTurn = (args: TurnArgs) => Promise<boolean>;

/**
 * One activity per channel: the shared attempt pipeline, with a result that stays small whatever
 * the trigger renders; a delivery that `endsTurn` ends its dispatch's turn in its instance order.
 */
const activityOf =
  <T>(deps: PipelineDeps, channel: Channel<T>, endTurn: EndTurn, pace: PaceActivities) =>
  (args: ActionArgs): Promise<DeliveryReceipt> =>
    // Every line of the attempt (the pipeline's, the ledger's, the breaker's) names the signal and its request.
    withLogFields({ signal_id: args.signal.id, ...(args.requestId ? { request_id: args.requestId } : {}) }, async () => {
      const receipt = await paced(args, pace, () => runAttempt(deps, channel, args));
      const turnEnded = args.endsTurn !== undefined && (await endTurn(args.endsTurn));
      return { ...receipt, warnings: boundWarnings(receipt.warnings), ...(turnEnded ? { turnEnded } : {}) };
    });

/**
 * A paced attempt gives back its place when it ends, and a receiver's pause pauses its
 * destination; a fault there is logged (the place comes back when its lease ends).
 */
const paced = async (args: ActionArgs, pace: PaceActivities, attempt: () => Promise<DeliveryReceipt>): Promise<DeliveryReceipt> => {
  if (!args.paced) return attempt();
  let pausedUntil: number | undefined;
  let sent = true;
  try {
    return await attempt();
  } catch (e) {
    // Nothing was sent: the workflow waits for the slot reserved and tries again.
    sent = !(e instanceof PaceHold);
    if (e instanceof PaceHold)
      return {
        attempt: (args.attemptsBefore ?? 0) + 1,
        warnings: [],
        heldUntil: e.until,
        ...(e.reserved ? { slotReserved: true as const } : {}),
      };
    pausedUntil = (e as { details?: Array<{ pausedUntil?: number }> }).details?.[0]?.pausedUntil;
    throw e;
  } finally {
    await pace
      .endAttempt(args.paced, { sent, ...(pausedUntil === undefined ? {} : { pausedUntil }) })
      .catch((e: unknown) => Context.current().log.warn('pace: the end of a paced attempt was not recorded', { error: String(e) }));
  }
};

/** The worker's activities, on real clients; tests pass real clients pointed at test servers. */
export const createActivities = (deps: ActivityDeps): DispatchActivities => {
  const definitionAt = createDefinitionAt(deps.store);
  const breaker = createBreaker({ store: deps.store, definitionAt, settings: breakerSettingsOf(deps.config), log: deps.log });
  const pace = paceActivities({
    store: deps.store,
    limitOf: (key) => paceLimitOf(deps.config.destinations, key),
    log: deps.log,
    client: () => Context.current().client,
    sleep: (ms) => Promise.race([new Promise<void>((r) => setTimeout(r, ms)), Context.current().cancelled]),
    ...(deps.metrics ? { metrics: deps.metrics.pace } : {}),
  });
  const pipeline: PipelineDeps = {
    definitionAt,
    dynamicValues: deps.dynamicValues,
    ledger: createDeliveredLedger(deps.store, deps.log),
    log: deps.log,
    breaker,
    metrics: deps.metrics && { metrics: deps.metrics, destinations: deps.config.destinations },
    beforeSend: async (args) => {
      if (!args.paced) return;
      let again: Held | undefined;
      try {
        again = await pace.sendNow(args.paced.key, SEND_WAIT_MAX_SECS * 1000, args.paced.sendAt);
      } catch (e) {
        // The worker stops while the attempt waits for its slot: nothing was sent, so it does not count.
        if (e instanceof CancelledFailure) throw new PaceHold(Date.now(), false);
        throw e;
      }
      if (again !== undefined) throw new PaceHold(again.until, again.reserved);
    },
  };
  const { channels } = deps;
  const turns = turnActivities(deps.store);
  return {
    deliverWebhook: activityOf(pipeline, channels.webhook, turns.endTurnOnDelivery, pace),
    publishToBroker: activityOf(pipeline, channels.broker, turns.endTurnOnDelivery, pace),
    // One worker's first attempts in flight at once, over all its batches.
    deliverFirstAttempts: firstAttempts(pipeline, channels, createSlots(FIRST_ATTEMPT_CONCURRENCY)),
    takeTurn: turns.takeTurn,
    endTurn: turns.endTurn,
    reserveSlot: pace.reserveSlot,
    slotNow: pace.slotNow,
    takePlace: pace.takePlace,
  };
};
