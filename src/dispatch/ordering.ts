/**
 * Deliveries in order per instance: the `turn` signal a dispatch hears and the arguments of its
 * turn activities (turns kept in our store, src/ordering/turns.ts); and, for dispatches started before that,
 * the signals between them and the workflow that ordered them (src/workflows/instance-order.ts).
 * Pure: the workflow bundle imports it.
 */
import { defineSignal } from '@temporalio/workflow';
import type { MatchedTrigger } from './types';

/** The order a matched trigger's actions wait in (its instance key and order workflow); undefined when they go at once. */
export const orderOf = (t: MatchedTrigger) => (t.ordering && 'orderWorkflowId' in t.ordering ? t.ordering : undefined);

/** To the order's workflow: dispatches (by workflow id) in the order their signals were accepted (one id: as sent before batches). */
export const enqueueSignal = defineSignal<[string | string[]]>('enqueue');
/** To a dispatch: its turn to send the actions of this trigger (from the dispatch before it, or an order workflow). */
export const turnSignal = defineSignal<[string]>('turn');
/** To the order's workflow: the dispatch's actions of the trigger ended (delivered or failed for good). */
export const doneSignal = defineSignal<[string]>('done');

export interface InstanceOrderInput {
  triggerId: string;
  instanceKey: string;
  /** Dispatches waiting, the first one's turn given or to give (a new run carries them over). */
  queue: string[];
  /** The last dispatches handled, so one enqueued again is not given a second turn. */
  remembered: string[];
  /** History events after which a run continues as new (default 4,000); kept across runs. Tests set it low to reach that step. */
  eventsPerRun?: number;
  /** How the run gives turns (see OrderSignalsBy); absent in runs started before, which replay as they ran. */
  signalsBy?: OrderSignalsBy;
}

/**
 * How an order and its dispatches signal each other. `local-activity`: a local activity sends the
 * signal through the worker's client. A workflow's own signal to another workflow gets a second
 * workflow task just to confirm it was delivered (~7 ms of the Temporal server's CPU and ~4 ms of
 * the worker's here, twice per ordered delivery); the local activity's result is recorded in the
 * task that sent it. Signals may arrive twice (a task retried after its local activity ran):
 * a second turn to a dispatch that ended is answered again, a `done` from one not at the head is
 * ignored, as they were before.
 */
export type OrderSignalsBy = 'local-activity';

/** What the signalInOrder local activity sends: a turn to a dispatch, or `done` to an order. */
export interface OrderSignal {
  workflowId: string;
  signal: 'turn' | 'done';
  arg: string;
}

/** The definition of each signal an OrderSignal names. */
export const orderSignalDefinitions = { turn: turnSignal, done: doneSignal } as const;

/** A dispatch's place in one instance order (src/ordering/turns.ts), as its turn activities take it. */
export interface TurnArgs {
  orderId: string;
  workflowId: string;
  position: string;
  triggerId: string;
}

/** What became of a turn given to a dispatch's workflow. */
export type TurnGiven = 'given' | 'not-started' | 'closed';

/**
 * Tells a dispatch it is its turn (the `turn` signal with the trigger id): `not-started` when its
 * workflow does not exist yet (it is told again once it does), `closed` when it ended without
 * ending its turn (terminated by an operator): the order ends the turn for it.
 */
export type GiveTurn = (workflowId: string, triggerId: string) => Promise<TurnGiven>;
