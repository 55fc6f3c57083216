import { Context } from '@temporalio/activity';
import { OrderSignal, orderSignalDefinitions } from '../dispatch/ordering';
import { workflowNotFound } from '../temporal/give-turn';

/**
 * Sends a turn to a dispatch or `done` to an order, through the worker's client (src/dispatch/ordering.ts,
 * OrderSignalsBy). False when that workflow no longer runs: it takes no more signals. Other
 * errors throw, and the local activity is tried again.
 */
export const signalInOrder = async ({ workflowId, signal, arg }: OrderSignal): Promise<boolean> => {
  try {
    await Context.current().client.workflow.getHandle(workflowId).signal(orderSignalDefinitions[signal], arg);
    return true;
  } catch (e) {
    if (workflowNotFound(e)) return false;
    throw e;
  }
};
