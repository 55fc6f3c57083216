import { getExternalWorkflowHandle, proxyLocalActivities } from '@temporalio/workflow';
import type { DispatchActivities } from '../dispatch/activities';
import { OrderSignal, orderSignalDefinitions, OrderSignalsBy } from '../dispatch/ordering';

/**
 * Turns and `done` through the worker's client (src/dispatch/ordering.ts, OrderSignalsBy), tried
 * again until Temporal takes them; false when the workflow signalled no longer runs.
 */
const { signalInOrder } = proxyLocalActivities<DispatchActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Sends a turn or `done` as the run says (`by`; runs started before local-activity signals
 * signal as workflows, as they did); false when the workflow signalled no longer runs.
 */
export const sendOrderSignal = (by: OrderSignalsBy | undefined, s: OrderSignal): Promise<boolean> =>
  by === 'local-activity'
    ? signalInOrder(s)
    : getExternalWorkflowHandle(s.workflowId)
        .signal(orderSignalDefinitions[s.signal], s.arg)
        .then(
          () => true,
          () => false,
        );
