import * as t from 'io-ts';
import { buildTriggerInputCodec, TriggerDefinition } from './codecs';
import { LENIENT_POLICY } from './policy';

export const SCHEMA_VERSION = 1;

export type TriggerEvent =
  | { type: 'TriggerCreated'; data: { schema_version: number; trigger_id: string; definition: TriggerDefinition } }
  | { type: 'TriggerUpdated'; data: { schema_version: number; trigger_id: string; definition: TriggerDefinition } }
  | { type: 'TriggerActivated'; data: { schema_version: number; trigger_id: string } }
  | { type: 'TriggerDeactivated'; data: { schema_version: number; trigger_id: string } }
  | { type: 'TriggerDeleted'; data: { schema_version: number; trigger_id: string } };

export interface EventMetadata {
  actor: string;
  request_id: string;
  occurred_at: string;
}

export const streamOf = (triggerId: string): string => `action_trigger-${triggerId}`;

const StoredDefinition = buildTriggerInputCodec(LENIENT_POLICY);
const Base = t.type({ schema_version: t.number, trigger_id: t.string });
const WithDefinition = t.type({ schema_version: t.number, trigger_id: t.string, definition: t.unknown });
export const EventMetadata = t.type({ actor: t.string, request_id: t.string, occurred_at: t.string });

/** Decodes an event read back from the store (the store is an edge); undefined if unknown. */
export const decodeTriggerEvent = (type: string, data: unknown): TriggerEvent | undefined => {
  switch (type) {
    case 'TriggerCreated':
    case 'TriggerUpdated': {
      const envelope = WithDefinition.decode(data);
      if (envelope._tag === 'Left') return undefined;
      const def = StoredDefinition.decode(envelope.right.definition);
      if (def._tag === 'Left') return undefined;
      const { schema_version, trigger_id } = envelope.right;
      return { type, data: { schema_version, trigger_id, definition: def.right.definition } };
    }
    case 'TriggerActivated':
    case 'TriggerDeactivated':
    case 'TriggerDeleted': {
      const envelope = Base.decode(data);
      if (envelope._tag === 'Left') return undefined;
      return { type, data: { schema_version: envelope.right.schema_version, trigger_id: envelope.right.trigger_id } };
    }
    default:
      return undefined;
  }
};
