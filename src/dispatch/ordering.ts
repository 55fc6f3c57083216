/**
 * Deliveries in order per instance: the `turn` signal a dispatch hears and the arguments of its
 * turn activities (turns kept in our store, src/ordering/turns.ts). Pure: the workflow bundle
 * imports it.
 */
import { defineSignal } from '@temporalio/workflow';
import type { MatchedTrigger } from './types';

/** The order a matched trigger's actions wait in (its instance key and order workflow); undefined when they go at once. */
export const orderOf = (t: MatchedTrigger) => (t.ordering && 'orderWorkflowId' in t.ordering ? t.ordering : undefined);

/** To a dispatch: its turn to send the actions of this trigger (from the dispatch before it). */
export const turnSignal = defineSignal<[string]>('turn');

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
