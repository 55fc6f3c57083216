import { condition, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import type { ActionOutcome, ActionPlan, ActionState, DispatchInput, DispatchStatus } from '../dispatch/types';
import { pacedSignal, PaceWait, RateSlot, SEND_WAIT_MAX_SECS, TIMER_MIN_MS } from '../dispatch/pacing';
import { recordDelivered, recordFailed } from '../dispatch/attempts';
import { delayAfter, millis } from '../dispatch/retry-schedule';
import { boundText } from '../dispatch/bounds';
import { attemptOf, failedOf, REPORT_GRACE_SECS } from './attempt-of';

/** The pace's reads and writes in our store: quick, tried again until they work. */
const { reserveSlot, slotNow, takePlace } = proxyLocalActivities<DispatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * How long a delivery queued for an in-flight place waits for the `paced` signal before it looks
 * itself (a place whose holder died comes back when its lease ends), each wait after that twice
 * the last, up to ten minutes: a long queue costs one timer per waiting delivery.
 */
const PLACE_CHECK_SECS = 60;
const PLACE_CHECK_MAX_SECS = 600;
/** Beyond its own time-out, how long a place may be held: the wait for a worker to start the attempt. */
const LEASE_EXTRA_SECS = 60;
/**
 * A receiver's pauses do not count against the retry budget, up to this many per delivery (a
 * receiver that only ever asks for pauses still ends the delivery).
 */
const MAX_PAUSES = 100;

/** The places given to each waiting action, by holder id; keyed by the action's own record, as cancels are. */
const places = new WeakMap<ActionOutcome, Set<string>>();
const placesOf = (outcome: ActionOutcome) => {
  const own = places.get(outcome) ?? new Set<string>();
  places.set(outcome, own);
  return own;
};

/** Takes the `paced` signals of this dispatch: each names the holder id (`<delivery id>#<n>`) given a place. */
export const takePlaces = (status: DispatchStatus): void => {
  setHandler(pacedSignal, (holderId) => {
    const outcome = status.actions.find((a) => holderId.startsWith(`${a.deliveryId}#`));
    if (outcome) placesOf(outcome).add(holderId);
  });
};

/** Shows the action waiting for its destination until `wait` ends; then as it was. */
const waiting = async <T>(outcome: ActionOutcome, why: PaceWait, wait: () => Promise<T>): Promise<T> => {
  const before: ActionState = outcome.state;
  outcome.state = 'waiting';
  outcome.waitingFor = why;
  try {
    return await wait();
  } finally {
    if (outcome.state === 'waiting') outcome.state = before;
    delete outcome.waitingFor;
  }
};

const reasonOf = (paused: boolean) => (paused ? 'paused_by_receiver' : 'rate_limited');

/** Waits for a slot at sending reserved by the try before (its attempt takes it). */
const slotAtSending = async (outcome: ActionOutcome, sendAt: number): Promise<RateSlot> => {
  const waitMs = sendAt - Date.now() - TIMER_MIN_MS / 2;
  if (waitMs > 0) await waiting(outcome, { reason: 'rate_limited', until: new Date(sendAt).toISOString() }, () => sleep(waitMs));
  return { slot: 0, at: sendAt, waitMs: 0, paused: false };
};

/**
 * Waits until the attempt may go under its destination's limit: its slot under `max_per_second`
 * (a durable timer; a pause met on waking moves it on), then a place under `max_in_flight` (at
 * once, or when the `paced` signal gives it). Holds no worker slot while it waits.
 */
const waitForPace = async (key: string, plan: ActionPlan, outcome: ActionOutcome, holderId: string, first: boolean, sendAt?: number) => {
  let slot = sendAt === undefined ? await reserveSlot({ key, first }) : await slotAtSending(outcome, sendAt);
  if (!slot) return false;
  while (slot.waitMs > TIMER_MIN_MS) {
    const { at, waitMs } = slot;
    await waiting(outcome, { reason: reasonOf(slot.paused), until: new Date(at).toISOString() }, () => sleep(waitMs));
    slot = await slotNow({ key, slot: slot.slot });
  }
  const args = {
    key,
    holderId,
    workflowId: workflowInfo().workflowId,
    leaseMs: millis(plan.timeoutSecs + REPORT_GRACE_SECS + SEND_WAIT_MAX_SECS + LEASE_EXTRA_SECS),
  };
  let place = await takePlace(args);
  for (let secs = PLACE_CHECK_SECS; !place.held; secs = Math.min(PLACE_CHECK_MAX_SECS, secs * 2)) {
    const told = await waiting(outcome, { reason: reasonOf(place.paused) }, () =>
      condition(() => placesOf(outcome).has(holderId), secs * 1000),
    );
    place = told ? { held: true } : await takePlace({ ...args, recheck: true });
  }
  places.delete(outcome);
  return true;
};

/**
 * Each attempt one activity with one try: the loop here, not Temporal's retry policy, so each
 * waits for its place. Never a local activity: its wait at sending would hold the workflow task
 * open, and a task timed out runs its local activities again (the others' first attempts too).
 */
const oneAttempt = (plan: ActionPlan) =>
  proxyActivities<DispatchActivities>({
    activityId: plan.deliveryId,
    startToCloseTimeout: millis(plan.timeoutSecs + REPORT_GRACE_SECS + SEND_WAIT_MAX_SECS),
    retry: { maximumAttempts: 1 },
  });

/**
 * An action to a destination with a limit (`plan.pace`): every attempt, first or retry, waits
 * for its place under the limit first, and the wait counts against neither its time-out nor its
 * retry budget. A receiver's pause (429 or 503 with Retry-After) pauses the whole destination;
 * the attempt it answered goes again first when the pause ends, without counting.
 */
export const runPaced = async (input: DispatchInput, plan: ActionPlan, outcome: ActionOutcome, ledger: boolean) => {
  const key = plan.pace!;
  let attempts = 0;
  let sendAt: number | undefined;
  for (let n = 0, pauses = 0; ; n++) {
    const holderId = `${plan.deliveryId}#${n}`;
    const limited = await waitForPace(key, plan, outcome, holderId, n > 0, sendAt);
    const paced = { key, ...(limited ? { holderId } : {}), ...(sendAt === undefined ? {} : { sendAt }) };
    sendAt = undefined;
    try {
      const receipt = await attemptOf(input, plan, ledger, undefined, paced)(oneAttempt(plan), attempts);
      // The limit held it back with a slot reserved: wait for it, not counted (each hold is a slot: it ends).
      if (receipt.heldUntil !== undefined) {
        if (receipt.slotReserved) sendAt = receipt.heldUntil;
        continue;
      }
      recordDelivered(outcome, receipt);
      return;
    } catch (err) {
      const f = failedOf(err);
      if (f.details?.pausedUntil !== undefined && pauses < MAX_PAUSES) {
        pauses++;
        if (outcome.state !== 'cancelled') Object.assign(outcome, { statusCode: f.details.statusCode, lastError: boundText(f.message) });
        continue;
      }
      attempts++;
      f.details = { ...f.details, attempt: attempts };
      if (!f.retryable || attempts >= input.retry.maxAttempts) return recordFailed(outcome, f, 'failed');
      recordFailed(outcome, f, 'retrying');
      await sleep(f.details.retryDelayMs ?? delayAfter(attempts, input.retry));
    }
  }
};
