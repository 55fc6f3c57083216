import * as kafkajs from 'kafkajs';

/**
 * kafkajs 2.2.4, with one fix: its request queue re-armed a timer after every check even with
 * nothing pending and no throttling, computed from the `-1` "not throttled" mark, so every
 * connection ran a 1 ms timer for as long as it was open (CPU spent for nothing, and Node 24's
 * TimeoutNegativeWarning). With nothing pending and no throttle it now waits: a request pushed
 * later is sent at once, or schedules its own check (kafkajs #1704, #1751). Everything that
 * talks to Kafka imports kafkajs from here.
 */
interface RequestQueue {
  throttledUntil: number;
  pending: unknown[];
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prototype } = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueue };
/** kafkajs's own interval for a pending request while not throttled. */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

prototype.scheduleCheckPendingRequests = function (this: RequestQueue) {
  if (this.throttleCheckTimeoutId) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  if (this.pending.length === 0 && untilUnthrottled <= 0) return;
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL,
  );
};

export const { Kafka, logLevel, Partitioners } = kafkajs;
export type { ISocketFactory, KafkaMessage, Producer } from 'kafkajs';
