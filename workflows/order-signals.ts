import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * Turns and `done` through the worker's client (src/dispatch/ordering.ts, OrderSignalsBy), tried
 * again until Temporal takes them; false when the workflow signalled no longer runs.
 */
export const { signalInOrder } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
