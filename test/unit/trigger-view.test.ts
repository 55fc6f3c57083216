import fc from 'fast-check';
import { evolveView, TriggerView } from '../../src/projections/trigger-view';
import { TriggerEvent } from '../../src/model/triggers/events';
import { TriggerDefinition } from '../../src/model/triggers/codecs';

const id = '01900000-0000-7000-8000-000000000001';
const def = (active: boolean, n: number): TriggerDefinition => ({
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: `m${n}` }],
  webhooks: [],
  msg_broker_queues: [],
  active,
});

/** Any valid history: created, then updates and (de)activations, maybe deleted at the end. */
const history = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc
          .nat(5)
          .map((n): TriggerEvent => ({ type: 'TriggerUpdated', data: { schema_version: 1, trigger_id: id, definition: def(true, n) } })),
        fc.boolean().map((on): TriggerEvent => ({
          type: on ? 'TriggerActivated' : 'TriggerDeactivated',
          data: { schema_version: 1, trigger_id: id },
        })),
      ),
      { maxLength: 12 },
    ),
    fc.boolean(),
  )
  .map(([middle, del]): TriggerEvent[] => [
    { type: 'TriggerCreated', data: { schema_version: 1, trigger_id: id, definition: def(true, 0) } },
    ...middle,
    ...(del ? [{ type: 'TriggerDeleted', data: { schema_version: 1, trigger_id: id } } as TriggerEvent] : []),
  ]);

const fold = (events: TriggerEvent[], replayFrom: number) => {
  let view: TriggerView | undefined | null;
  const apply = (e: TriggerEvent, i: number) => {
    if (view === null) return;
    view = evolveView(view, e, { revision: i, occurred_at: new Date(i * 1000).toISOString() });
  };
  events.forEach(apply);
  // Replaying an already applied suffix must change nothing.
  events.slice(replayFrom).forEach((e, k) => apply(e, replayFrom + k));
  return view;
};

test('replaying events already applied is a no-op', () => {
  fc.assert(
    fc.property(history, fc.nat(), (events, r) => {
      expect(fold(events, r % events.length)).toEqual(fold(events, events.length));
    }),
  );
});

test('the view counts versions and keeps created_at', () => {
  fc.assert(
    fc.property(history, (events) => {
      const view = fold(events, events.length);
      if (events[events.length - 1]!.type === 'TriggerDeleted') return expect(view).toBeNull();
      expect(view?.version).toBe(events.length);
      expect(view?.created_at).toBe(new Date(0).toISOString());
      expect(view?.updated_at).toBe(new Date((events.length - 1) * 1000).toISOString());
    }),
  );
});
