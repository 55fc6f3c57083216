import * as t from 'io-ts';
import { TriggerDefinition } from './codecs';

export const SCHEMA_VERSION = 1;

export type TriggerEvent =
  | { type: 'TriggerCreated'; data: { schema_version: number; trigger_id: string; definition: TriggerDefinition } }
  | { type: 'TriggerUpdated'; data: { schema_version: number; trigger_id: string; definition: TriggerDefinition } }
  | { type: 'TriggerActivated'; data: { schema_version: number; trigger_id: string } }
  /** `reason`: set when the service deactivated it (the circuit breaker), naming the failing action. */
  | { type: 'TriggerDeactivated'; data: { schema_version: number; trigger_id: string; reason?: string } }
  | { type: 'TriggerDeleted'; data: { schema_version: number; trigger_id: string } };

export interface EventMetadata {
  actor: string;
  request_id: string;
  occurred_at: string;
}

export const streamOf = (triggerId: string): string => `action_trigger-${triggerId}`;

export const EventMetadata = t.type({ actor: t.string, request_id: t.string, occurred_at: t.string });

/** When an event happened, from its metadata; the epoch for an event written without it. */
export const occurredAt = (metadata: unknown): string => {
  const meta = EventMetadata.decode(metadata);
  return meta._tag === 'Right' ? meta.right.occurred_at : new Date(0).toISOString();
};
