import { context } from '@opentelemetry/api';
import { DispatchPlan, DispatchTurns, SignalEnvelope, workflowIdOf } from '../../dispatch/types';
import type { GiveTurn } from '../../dispatch/ordering';
import { EventStore, StoredEvent, UnreadableEvent } from '../../event-store/port';
import { withLogFields } from '../../kernel/log-context';
import { originOf, Redelivery, REDELIVERY_REQUESTED, refusedEvent, SignalRecord } from '../../model/signals/signal-record';
import { contextOf } from '../../observability/tracing';
import type { ordersOf } from '../../ordering/instance-orders';
import type { TurnStore } from '../../ordering/turn-store';
import type { RedeliveryStart } from '../../temporal/dispatch-client';
import { LeaseLost, MAX_BACKOFF_MS, RelayRun } from './relay-run';
import { requestOf } from './relay-requests';
import { isTransient } from './transient';

/**
 * Starts one signal's dispatch (or a redelivery); the same again must start nothing new (workflow id).
 * Called in the trace of the request that stored it; `requestId` is that request's.
 */
export type StartDispatch = (
  signal: SignalEnvelope,
  plan: DispatchPlan,
  redelivery?: RedeliveryStart,
  requestId?: string,
  turns?: DispatchTurns,
) => Promise<unknown>;

/** A signal's dispatch in its instance orders: its place, the triggers whose turn it already has, and when every order holds it. */
export type Queued = NonNullable<ReturnType<typeof ordersOf>> & { given: Promise<string[]>; written: Promise<void> };

/** A start that failed for good is tried this many times, then recorded on the signal as refused. */
const PERMANENT_TRIES = 5;

export interface StartsDeps {
  readonly store: EventStore;
  readonly start: StartDispatch;
  readonly giveTurn: GiveTurn;
  readonly turns: TurnStore;
}

/** Starting one dispatch at a time: retried while Temporal is away; a refusal for good is recorded on the signal. */
export const relayStarts = (deps: StartsDeps, run: RelayRun) => {
  const lost = () => {
    if (!run.holding()) throw new LeaseLost();
  };

  /** A dispatch Temporal refused for good never takes its turns: each order passes it over. */
  const skipInOrders = async (queued: Queued) => {
    for (const order of queued.orders) {
      for (let delay = 100; ; delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
        lost();
        try {
          await deps.turns.skip(order.orderId, queued.dispatch, order.triggerId, deps.giveTurn);
          break;
        } catch (e) {
          run.log.warn('could not pass a refused dispatch over in its instance order; retrying', { error: String(e) });
          await run.pause(delay);
        }
      }
    }
  };

  /** True once started (or started before); false when Temporal refused it for good (recorded on the signal). */
  const startIn = async (
    event: StoredEvent,
    request: { record: SignalRecord; redelivery?: Redelivery },
    requestId: string | undefined,
    queued?: Queued,
  ): Promise<boolean> => {
    const { record, redelivery } = request;
    const turnsOf: DispatchTurns | undefined = queued && { position: queued.dispatch.position, given: await queued.given };
    for (let tries = 1, delay = 100; ; tries++, delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
      lost();
      try {
        // Stopping waits for a start in flight; the dispatch client bounds each one (5 s).
        const workflowId = redelivery?.workflow_id ?? workflowIdOf(record.signal.id);
        await deps.start(
          record.signal,
          redelivery?.plan ?? record.plan,
          redelivery && {
            workflowId,
            of: { workflowId: workflowIdOf(record.signal.id), mode: redelivery.mode },
          },
          requestId,
          turnsOf,
        );
        run.waiting(undefined);
        run.log.info('dispatch started', { workflow_id: workflowId });
        return true;
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        run.waiting(reason);
        if (!isTransient(e) && tries >= PERMANENT_TRIES) {
          run.log.error('dispatch refused by Temporal; recorded on the signal', { signal_id: record.signal.id, error: reason });
          await deps.store.append(event.streamId, [refusedEvent(reason.slice(0, 300), redelivery?.number)], 'any');
          if (queued) await skipInOrders(queued);
          return false;
        }
        if (tries === 1) run.log.warn('could not start a dispatch; retrying', { signal_id: record.signal.id, error: reason });
        await run.pause(delay);
      }
    }
  };

  /**
   * A signal (or redelivery) this build cannot read is recorded as refused, with why but none of
   * its values, so the signals after it go on; a redelivery from a build that reads it sends it.
   */
  const refuseUnreadable = async (event: StoredEvent, e: UnreadableEvent) => {
    const reason = `this build cannot read the stored signal (${e.streamId}@${e.revision}): ${e.reason}`.slice(0, 300);
    run.log.error('a stored signal this build cannot read was recorded as refused', { stream: event.streamId, error: reason });
    const number = event.type === REDELIVERY_REQUESTED ? event.data.number : undefined;
    await deps.store.append(event.streamId, [refusedEvent(reason, typeof number === 'number' ? number : undefined)], 'any');
  };

  /**
   * One dispatch, in the scope of the request that stored it: its trace is the workflow's parent,
   * its ids are on every log line.
   */
  const startOne = async (event: StoredEvent, queued?: Queued): Promise<string | undefined> => {
    let request: Awaited<ReturnType<typeof requestOf>>;
    try {
      request = await requestOf(deps.store, event);
    } catch (e) {
      if (e instanceof UnreadableEvent) return void (await refuseUnreadable(event, e));
      throw e;
    }
    if (!request) return void run.log.warn('a redelivery of a signal past its retention was not started', { stream: event.streamId });
    const origin = originOf(event);
    const ids = { signal_id: request.record.signal.id, ...(origin.request_id ? { request_id: origin.request_id } : {}) };
    return withLogFields(ids, () =>
      context.with(contextOf(origin.traceparent), async () =>
        (await startIn(event, request, origin.request_id, queued)) ? workflowIdOf(request.record.signal.id) : undefined,
      ),
    );
  };

  /** Starts one, again after a fault of ours (a store read), until done or the lease is gone. */
  return async (event: StoredEvent, queued?: Queued) => {
    for (let delay = 100; ; delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
      try {
        return await startOne(event, queued);
      } catch (e) {
        if (e instanceof LeaseLost || !run.holding()) throw e;
        run.log.error('relay failed; retrying', { error: String(e) });
        await run.pause(delay);
      }
    }
  };
};
