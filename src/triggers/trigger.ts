import { TriggerDefinition } from './codecs';
import { TriggerEvent } from './events';

export type TriggerState =
  | { status: 'absent' }
  | { status: 'live'; definition: TriggerDefinition }
  | { status: 'deleted' };

export const initialState: TriggerState = { status: 'absent' };

export const evolve = (state: TriggerState, event: TriggerEvent): TriggerState => {
  switch (event.type) {
    case 'TriggerCreated':
    case 'TriggerUpdated':
      return { status: 'live', definition: event.data.definition };
    case 'TriggerActivated':
    case 'TriggerDeactivated':
      return state.status === 'live'
        ? { status: 'live', definition: { ...state.definition, active: event.type === 'TriggerActivated' } }
        : state;
    case 'TriggerDeleted':
      return { status: 'deleted' };
    default: {
      const _never: never = event;
      return state;
    }
  }
};
