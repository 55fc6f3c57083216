/** The alert sinks, made from their settings: one row per type. */
import type { Sink } from '../../model/alerts/alert';
import { createEmailSink } from './email';
import type { SinkSettings } from '../../config/alerts/settings';
import { createSlackSink } from './slack';
import { createWebhookSink } from './webhook';
import type { DynamicValueSource } from '../../delivery/dynamic-values';

const CREATE: {
  readonly [K in SinkSettings['type']]: (settings: Extract<SinkSettings, { type: K }>, values?: DynamicValueSource) => Sink;
} = {
  webhook: createWebhookSink,
  slack: createSlackSink,
  email: createEmailSink,
};

/** Each sink with its own client (connections, SMTP transport); `close` on each releases it. `values` resolves a password given as a dynamic value. */
export const createSinks = (settings: readonly SinkSettings[], values?: DynamicValueSource): Sink[] =>
  settings.map((s) => (CREATE[s.type] as (settings: SinkSettings, values?: DynamicValueSource) => Sink)(s, values));
