/**
 * The activities the dispatch workflow calls, by name and type: the worker registers functions
 * of exactly these types (src/activities), and the workflow proxies them from this interface, so
 * workflow code never imports the worker's. Pure types.
 */
import type { ActionPlan, DeliveryReceipt, FirstAttempt, FirstAttemptsArgs, RetrySettings, SignalEnvelope } from './types';
import type { TurnArgs } from './ordering';
import type { PaceArgs, PacedAttempt, Place, RateSlot } from './pacing';

/**
 * What every action activity receives from the workflow: references, the signal, the retry
 * schedule, and how many attempts ran before this activity (older dispatches ran the first
 * one locally).
 */
export interface ActionArgs {
  plan: ActionPlan;
  signal: SignalEnvelope;
  retry: RetrySettings;
  attemptsBefore?: number;
  /** Look the delivery up in the ledger first and record it there when delivered (dispatches whose first attempts run locally). */
  ledger?: boolean;
  /** The request that accepted the signal, for the attempt's log lines. */
  requestId?: string;
  /**
   * This action is its trigger's only one in an instance order: once delivered, the attempt ends
   * the dispatch's turn itself (one workflow activation less per ordered delivery).
   */
  endsTurn?: TurnArgs;
  /** The action's destination is paced: the attempt gives back its place when it ends, and a receiver's pause pauses the destination. */
  paced?: PacedAttempt;
}

export interface DispatchActivities {
  deliverWebhook(args: ActionArgs): Promise<DeliveryReceipt>;
  publishToBroker(args: ActionArgs): Promise<DeliveryReceipt>;
  /** A batch of first attempts as one local activity. */
  deliverFirstAttempts(args: FirstAttemptsArgs): Promise<FirstAttempt[]>;
  /** Whether it is this dispatch's turn in its instance order. */
  takeTurn(args: TurnArgs): Promise<boolean>;
  /** This dispatch's actions of the trigger ended: the next dispatch's turn. */
  endTurn(args: TurnArgs): Promise<void>;
  /** Reserves an attempt's slot under its destination's `max_per_second` (undefined: no limit now). */
  reserveSlot(args: { key: string; first: boolean }): Promise<RateSlot | undefined>;
  /** When a reserved slot falls now (a pause may have moved it). */
  slotNow(args: { key: string; slot: number }): Promise<RateSlot>;
  /** Takes a place under the destination's `max_in_flight`, or queues for the `paced` signal. */
  takePlace(args: PaceArgs & { recheck?: boolean }): Promise<Place>;
}
