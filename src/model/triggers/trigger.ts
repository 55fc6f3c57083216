import { TriggerDefinition } from './codecs';
import { TriggerEvent } from './events';

export type TriggerState =
  | { status: 'absent' }
  /** `deactivatedReason`: why the service deactivated it; kept while it stays inactive. */
  | { status: 'live'; definition: TriggerDefinition; deactivatedReason?: string }
  | { status: 'deleted' };

export const initialState: TriggerState = { status: 'absent' };

const reasonOf = (state: TriggerState) =>
  state.status === 'live' && state.deactivatedReason !== undefined ? { deactivatedReason: state.deactivatedReason } : {};

export const evolve = (state: TriggerState, event: TriggerEvent): TriggerState => {
  switch (event.type) {
    case 'TriggerCreated':
      return { status: 'live', definition: event.data.definition };
    case 'TriggerUpdated':
      // An edit that leaves it inactive leaves the reason; one that activates it clears it.
      return { status: 'live', definition: event.data.definition, ...(event.data.definition.active ? {} : reasonOf(state)) };
    case 'TriggerActivated':
      return state.status === 'live' ? { status: 'live', definition: { ...state.definition, active: true } } : state;
    case 'TriggerDeactivated':
      return state.status === 'live'
        ? {
            status: 'live',
            definition: { ...state.definition, active: false },
            ...(event.data.reason === undefined ? {} : { deactivatedReason: event.data.reason }),
          }
        : state;
    case 'TriggerDeleted':
      return { status: 'deleted' };
    default: {
      const _never: never = event;
      return state;
    }
  }
};
