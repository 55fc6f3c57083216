import { DispatchPlan, redeliveryWorkflowIdOf, SignalEnvelope, workflowIdOf } from '../../dispatch/types';
import * as E from 'fp-ts/Either';
import { Decision, foldStream, runCommand } from '../../event-store/command';
import { EventStore } from '../../event-store/port';
import { MAX_REDELIVERIES_PER_SIGNAL } from '../../kernel/limits';
import { dispatchStillQueued, startedDispatches } from '../../model/signals/started-dispatches';
import { Redelivery, redeliveryEvent, signalKind, signalStreamOf, StoredSignal } from '../../model/signals/signal-record';
import { DispatchClient } from '../../temporal/dispatch-client';
import type { FieldError } from '../../kernel/field-errors';
import type { RedeliveryQueued } from '@action-triggers/client';
import { requestOrigin } from '../../model/signals/origin';
import { chooseActions, RedeliveryAsk } from './choose';

export interface RedeliveryDeps {
  readonly store: EventStore;
  readonly dispatch: DispatchClient;
  /** The signal's plan today, for a redelivery of mode `current`. */
  readonly plan: (signal: SignalEnvelope) => DispatchPlan;
  readonly now: () => Date;
}

/** What asking for a redelivery came to; the routes turn each into an answer. */
export type Redelivered =
  | {
      outcome: 'queued';
      body: RedeliveryQueued;
    }
  | { outcome: 'unknown' }
  | { outcome: 'invalid'; errors: FieldError[] }
  | { outcome: 'busy'; detail: string }
  | { outcome: 'nothing'; detail: string };

/** Delivery ids any dispatch of the signal (its own, its redeliveries) delivered; 'busy' while one has not ended. */
const deliveredSoFar = async (deps: RedeliveryDeps, s: StoredSignal): Promise<Set<string> | { busy: string }> => {
  if (await dispatchStillQueued(deps.store, s)) return { busy: 'a dispatch of this signal is still queued' };
  const id = s.record.signal.id;
  const delivered = new Set<string>();
  for (const { workflowId } of startedDispatches(s)) {
    const view = await deps.dispatch.status(id, workflowId);
    if (view?.state === 'running') return { busy: `its dispatch ${workflowId} is still running` };
    for (const a of view?.actions ?? []) if (a.state === 'delivered') delivered.add(a.delivery_id);
  }
  return delivered;
};

/**
 * Asks for a new dispatch of some of a stored signal's actions: appended to the signal's stream
 * (the relay starts it, also while Temporal is away), after the stream's last event, so two asks
 * at once never both succeed. Temporal errors propagate (the caller answers 503).
 */
export const requestRedelivery = async (deps: RedeliveryDeps, signalId: string, ask: RedeliveryAsk): Promise<Redelivered> => {
  type Refused = Exclude<Redelivered, { outcome: 'queued' }>;
  const asked = await runCommand(deps.store, signalStreamOf(signalId), {
    load: () => foldStream(deps.store, signalStreamOf(signalId), signalKind),
    decide: async ({ state: stored }): Promise<E.Either<Refused, Decision<Redelivery>>> => {
      if (!stored) return E.left({ outcome: 'unknown' });
      if (stored.redeliveries.length >= MAX_REDELIVERIES_PER_SIGNAL) {
        return E.left({
          outcome: 'nothing',
          detail: `a signal is redelivered at most ${MAX_REDELIVERIES_PER_SIGNAL} times; send it as a new signal`,
        });
      }
      const delivered = await deliveredSoFar(deps, stored);
      if ('busy' in delivered) return E.left({ outcome: 'busy', detail: delivered.busy });
      const current = ask.mode === 'current' ? deps.plan(stored.record.signal) : stored.record.plan;
      const choice = chooseActions(ask, stored.record.plan, current, delivered);
      if (!choice.ok)
        return E.left('errors' in choice ? { outcome: 'invalid', errors: choice.errors } : { outcome: 'nothing', detail: choice.nothing });
      const number = stored.redeliveries.length + 1;
      const redelivery: Redelivery = {
        number,
        workflow_id: redeliveryWorkflowIdOf(signalId, number),
        mode: ask.mode,
        delivery_ids: choice.plan.actions.map((a) => a.deliveryId),
        plan: choice.plan,
      };
      return E.right({ events: [redeliveryEvent(redelivery, deps.now(), requestOrigin())], result: redelivery });
    },
    // Two asks at once: the one that lost would choose on a state that has moved on.
    retry: async () => false,
    lost: (): Refused => ({ outcome: 'busy', detail: 'another redelivery of this signal was asked for at the same time' }),
  });
  if (E.isLeft(asked)) return asked.left;
  const { number, workflow_id, mode, delivery_ids } = asked.right.result;
  return {
    outcome: 'queued',
    body: { id: signalId, workflow_id, redelivery_of: workflowIdOf(signalId), number, mode, delivery_ids, state: 'queued' },
  };
};
