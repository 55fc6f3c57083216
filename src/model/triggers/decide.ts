import * as E from 'fp-ts/Either';
import { TriggerDefinition } from './codecs';
import { SCHEMA_VERSION, TriggerEvent } from './events';
import { TriggerState } from './trigger';
import { DomainError } from '../../kernel/domain-error';
import { deepEqual } from '../../kernel/deep-equal';

export type TriggerCommand =
  | { type: 'CreateTrigger'; data: { trigger_id: string; definition: TriggerDefinition } }
  | { type: 'ReplaceTrigger'; data: { trigger_id: string; definition: TriggerDefinition } }
  | { type: 'DeleteTrigger'; data: { trigger_id: string } }
  /** The service's own deactivation (the circuit breaker); already inactive: no event. */
  | { type: 'DeactivateTrigger'; data: { trigger_id: string; reason: string } };

/** A replacement that changes only `active` is recorded as (de)activation; no change, no event. */
const replace = (trigger_id: string, before: TriggerDefinition, after: TriggerDefinition): TriggerEvent[] => {
  if (deepEqual(before, after)) return [];
  const v = SCHEMA_VERSION;
  if (deepEqual({ ...before, active: after.active }, after)) {
    return [{ type: after.active ? 'TriggerActivated' : 'TriggerDeactivated', data: { schema_version: v, trigger_id } }];
  }
  return [{ type: 'TriggerUpdated', data: { schema_version: v, trigger_id, definition: after } }];
};

export const decide = (command: TriggerCommand, state: TriggerState): E.Either<DomainError, TriggerEvent[]> => {
  const id = command.data.trigger_id;
  switch (command.type) {
    case 'CreateTrigger':
      return state.status === 'absent'
        ? E.right([
            { type: 'TriggerCreated', data: { schema_version: SCHEMA_VERSION, trigger_id: id, definition: command.data.definition } },
          ])
        : E.left({ _tag: 'AlreadyExists', id });
    case 'ReplaceTrigger':
      return state.status === 'live'
        ? E.right(replace(id, state.definition, command.data.definition))
        : E.left({ _tag: 'NotFound', ids: [id] });
    case 'DeleteTrigger':
      return state.status === 'live'
        ? E.right([{ type: 'TriggerDeleted', data: { schema_version: SCHEMA_VERSION, trigger_id: id } }])
        : E.left({ _tag: 'NotFound', ids: [id] });
    case 'DeactivateTrigger':
      if (state.status !== 'live') return E.left({ _tag: 'NotFound', ids: [id] });
      return E.right(
        state.definition.active
          ? [{ type: 'TriggerDeactivated', data: { schema_version: SCHEMA_VERSION, trigger_id: id, reason: command.data.reason } }]
          : [],
      );
    default: {
      const _never: never = command;
      return E.left({ _tag: 'NotFound', ids: [] });
    }
  }
};
