import { publisherFor } from './registry';
import type { FieldError } from '../../kernel/field-errors';

type StringMap = Readonly<Record<string, string>> | undefined;
export interface BrokerEntry {
  broker_type: string;
  conn_details?: Record<string, string>;
  params?: Record<string, string>;
}

/**
 * The missing or bad keys of a broker's settings once a queue entry's keys are merged over the
 * broker's (docs/spec.md: the trigger's keys win). Paths name the merged keys: `conn_details.x`,
 * `params.y`. Values holding templates count as present; their format is checked at delivery.
 */
export const brokerSettingsProblems = (broker: BrokerEntry, conn: StringMap, params: StringMap): FieldError[] => {
  const publisher = publisherFor(broker.broker_type);
  if (!publisher) return [];
  const result = publisher.settings({ ...broker.conn_details, ...conn }, { ...broker.params, ...params });
  return result.ok ? [] : result.errors;
};

/** The key of a settings path (`params.queue` → `queue`) and where a trigger would set it. */
export const splitSettingsPath = (path: string): { field: 'conn_details' | 'params'; key: string } => {
  const dot = path.indexOf('.');
  return { field: path.slice(0, dot) === 'params' ? 'params' : 'conn_details', key: path.slice(dot + 1) };
};
