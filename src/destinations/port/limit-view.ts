/** What a dry run shows of the limit over an action's destination, in the config's own words. */
import type { PaceLimit } from '../../dispatch/pacing';
import type { Schema } from './openapi';
import { MAX_BURST, MAX_IN_FLIGHT, MAX_PER_SECOND } from './limits';

export interface LimitView {
  /** The limit's key: `webhook:<name of its webhook_limits entry>` or `broker:<broker name>`. */
  name: string;
  max_per_second?: number;
  burst?: number;
  max_in_flight?: number;
}

/** A key's limit as the config writes it; `burst` only beside `max_per_second`, where it means something. */
export const limitViewOf = (key: string, limit: PaceLimit): LimitView => ({
  name: key,
  ...(limit.maxPerSecond === undefined ? {} : { max_per_second: limit.maxPerSecond, burst: limit.burst }),
  ...(limit.maxInFlight === undefined ? {} : { max_in_flight: limit.maxInFlight }),
});

export const LIMIT_VIEW_SCHEMA: Schema = {
  type: 'object',
  required: ['name'],
  description:
    "The config's limit over the action's destination (webhook_limits, brokers.<name>.limits), shared by every trigger sending there; absent: none",
  properties: {
    name: { type: 'string', description: 'webhook:<webhook_limits name> or broker:<broker name>' },
    max_per_second: { type: 'number', exclusiveMinimum: 0, maximum: MAX_PER_SECOND },
    burst: { type: 'integer', minimum: 1, maximum: MAX_BURST },
    max_in_flight: { type: 'integer', minimum: 1, maximum: MAX_IN_FLIGHT },
  },
};
