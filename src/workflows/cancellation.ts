import { CancellationScope, defineUpdate, isCancellation, setHandler } from '@temporalio/workflow';
import { ActionOutcome, CancelAsk, DispatchStatus, OPEN_ACTION_STATES } from '../dispatch/types';

/** Cancels the dispatch's open actions (`deliveryIds`, or all); answers the ids it cancelled. */
export const cancelUpdate = defineUpdate<string[], [CancelAsk]>('cancelDeliveries');

/**
 * The scope of each action's attempts while they run. Keyed by the action's own record, which
 * belongs to one workflow, so no two workflows share an entry.
 */
const scopes = new WeakMap<ActionOutcome, CancellationScope>();

const isOpen = (a: ActionOutcome) => OPEN_ACTION_STATES.includes(a.state);
/** Read anew each time: a cancel may come while the attempts await. */
const isCancelled = (a: ActionOutcome) => a.state === 'cancelled';

/**
 * Takes cancels for this dispatch's actions. The validator refuses a cancel that would end
 * nothing (a refused update leaves no trace in the history); an accepted one marks each chosen
 * action `cancelled`, with who and when, and cancels its scope: a timer waiting for the next
 * attempt ends, and an attempt scheduled or under way is asked to stop (one already on the wire
 * may still reach its target; none is started after it).
 */
export const takeCancels = (status: DispatchStatus): void => {
  const chosen = (ask: CancelAsk) =>
    status.actions.filter((a) => isOpen(a) && (!ask.deliveryIds || ask.deliveryIds.includes(a.deliveryId)));
  setHandler(
    cancelUpdate,
    (ask) => {
      const now = chosen(ask);
      for (const a of now) {
        a.state = 'cancelled';
        a.cancelled = { by: ask.by, at: ask.at };
        a.attempts = Math.max(a.attempts, ask.attemptsSeen?.[a.deliveryId] ?? 0);
        scopes.get(a)?.cancel();
      }
      return now.map((a) => a.deliveryId);
    },
    {
      validator: (ask) => {
        if (chosen(ask).length === 0) throw new Error('nothing to cancel: every chosen action of this dispatch has ended');
      },
    },
  );
};

/**
 * Runs one action's attempts so that a cancel ends them; `ended` is what an action cancelled
 * before or while they run comes to.
 */
export const cancellable = async <T>(outcome: ActionOutcome, ended: T, attempts: () => Promise<T>): Promise<T> => {
  if (isCancelled(outcome)) return ended;
  try {
    return await CancellationScope.cancellable(() => {
      scopes.set(outcome, CancellationScope.current());
      return attempts();
    });
  } catch (err) {
    if (isCancelled(outcome) && isCancellation(err)) return ended;
    throw err;
  } finally {
    scopes.delete(outcome);
  }
};
