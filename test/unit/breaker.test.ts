import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import {
  BreakerEvent,
  BreakerSettings,
  BreakerState,
  evolveBreaker,
  initialBreaker,
  onDelivered,
  onFailure,
  startsAfresh,
} from '../../src/model/breaker/state';
import { actionName, reasonOf } from '../../src/model/breaker/reason';
import { decide } from '../../src/model/triggers/decide';
import { TriggerEvent } from '../../src/model/triggers/events';
import { evolve, initialState } from '../../src/model/triggers/trigger';
import { TriggerDefinition } from '../../src/model/triggers/codecs';
import { evolveView, toResource, TriggerView } from '../../src/projections/trigger-view';
import { readStoredEvent } from '../../src/model/triggers/stored-events';
import { UnreadableEvent } from '../../src/event-store/port';

const settings: BreakerSettings = { consecutiveFailures: 3, failingForMs: 3_600_000 };
const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(t0 + minutes * 60_000);

/** Records each outcome as the hook does (events appended, then folded) and returns the trips. */
const run = (steps: Array<{ ok?: boolean; version?: number; action?: string; minute?: number; gone?: boolean }>) => {
  let state: BreakerState = initialBreaker;
  const trips: Array<string | undefined> = [];
  for (const [i, s] of steps.entries()) {
    const version = s.version ?? 1;
    const action = s.action ?? 'w0';
    const decided = s.ok
      ? { events: onDelivered(state, version, action) }
      : onFailure(state, { version, action, at: at(s.minute ?? i), gone: s.gone ?? false }, settings);
    state = decided.events.reduce(evolveBreaker, state);
    trips.push('trip' in decided ? decided.trip?.rule : undefined);
  }
  return { state, trips };
};

test('N consecutive failed dispatches of one action trip the breaker on the Nth', () => {
  expect(run([{}, {}, {}]).trips).toEqual([undefined, undefined, 'consecutive_failures']);
});

test('a delivery in between ends the run: the count starts again', () => {
  const { trips, state } = run([{}, {}, { ok: true }, {}, {}]);
  expect(trips).toEqual([undefined, undefined, undefined, undefined, undefined]);
  expect(state.runs.w0).toEqual({ failures: 2, since: at(3).toISOString() });
});

test('actions are counted apart: failures of w0 and q0 interleaved do not add up', () => {
  expect(run([{ action: 'w0' }, { action: 'q0' }, { action: 'w0' }, { action: 'q0' }]).trips.every((x) => x === undefined)).toBe(true);
  expect(run([{ action: 'w0' }, { action: 'q0' }, { action: 'q0', ok: true }, { action: 'w0' }, { action: 'w0' }]).trips.at(-1)).toBe(
    'consecutive_failures',
  );
});

test('a newer trigger version starts afresh; an older version (a dispatch still retrying from before) changes nothing', () => {
  expect(run([{}, {}, { version: 2 }, { version: 2 }]).trips).toEqual([undefined, undefined, undefined, undefined]);
  const { state, trips } = run([{ version: 2 }, { version: 1 }, { version: 1 }, { version: 2 }]);
  expect(trips).toEqual([undefined, undefined, undefined, undefined]);
  expect(state).toEqual({ version: 2, runs: { w0: { failures: 2, since: at(0).toISOString() } }, failed: ['w0'] });
});

test('failing for longer than the window trips it, counted from the first failure of the current run', () => {
  expect(run([{ minute: 0 }, { minute: 59 }]).trips).toEqual([undefined, undefined]);
  expect(run([{ minute: 0 }, { minute: 60 }]).trips).toEqual([undefined, 'failing_for']);
  // A delivery at minute 30 ends the run: the window starts again at minute 40.
  expect(run([{ minute: 0 }, { ok: true, minute: 30 }, { minute: 40 }, { minute: 90 }]).trips).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test('a 410 trips at once, even as the first failure', () => {
  expect(run([{ gone: true }]).trips).toEqual(['gone']);
});

test('a delivery records nothing unless the action failed last (a healthy trigger costs no write)', () => {
  expect(onDelivered(initialBreaker, 1, 'w0')).toEqual([]);
  const failing = run([{}]).state;
  expect(onDelivered(failing, 1, 'w0')).toEqual([{ type: 'ActionRecovered', data: { version: 1, action: 'w0' } }]);
  // A newer version (the trigger reactivated) delivering: the action recovered all the same.
  expect(onDelivered(failing, 2, 'w0')).toEqual([{ type: 'ActionRecovered', data: { version: 2, action: 'w0' } }]);
  expect(onDelivered(failing, 1, 'q0')).toEqual([]);
  const recovered = evolveBreaker(failing, { type: 'ActionRecovered', data: { version: 2, action: 'w0' } });
  expect(onDelivered(recovered, 2, 'w0')).toEqual([]);
});

test('truncating before an event that starts afresh leaves the same state (property)', () => {
  const event = fc.record({
    ok: fc.boolean(),
    version: fc.integer({ min: 1, max: 3 }),
    action: fc.constantFrom('w0', 'w1', 'q0'),
    minute: fc.nat(100),
  });
  fc.assert(
    fc.property(fc.array(event, { maxLength: 30 }), (steps) => {
      let state = initialBreaker;
      let kept: BreakerEvent[] = [];
      for (const s of steps) {
        const events = s.ok
          ? onDelivered(state, s.version, s.action)
          : onFailure(state, { version: s.version, action: s.action, at: at(s.minute), gone: false }, settings).events;
        for (const e of events) {
          kept = startsAfresh(state, e) ? [e] : [...kept, e];
          state = evolveBreaker(state, e);
        }
        expect(kept.reduce(evolveBreaker, initialBreaker)).toEqual(state);
      }
    }),
  );
});

const id = '01900000-0000-7000-8000-000000000001';
const def: TriggerDefinition = {
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'shop', model_name: 'order' }],
  webhooks: [{ url: 'https://user:pw@hooks.example.com/in/orders?token=s3cret#frag', http_method: 'POST' }],
  msg_broker_queues: [{ name: 'orders' }],
  active: true,
};
const created: TriggerEvent = { type: 'TriggerCreated', data: { schema_version: 1, trigger_id: id, definition: def } };

test('the reason names the action by scheme, host and path, never its credentials or query', () => {
  const name = actionName(def, 'webhook', 0);
  expect(name).toBe('webhook 0 (https://hooks.example.com/in/orders)');
  expect(actionName(def, 'broker', 0)).toBe('queue 0 (orders)');
  expect(reasonOf(name, { rule: 'consecutive_failures', failures: 3 }, 'HTTP 500', 1)).toBe(
    'webhook 0 (https://hooks.example.com/in/orders) failed every attempt of 3 consecutive dispatches (last error: HTTP 500)',
  );
  expect(reasonOf(name, { rule: 'gone' }, 'HTTP 410', 1)).toBe('webhook 0 (https://hooks.example.com/in/orders) answered 410 Gone');
  expect(reasonOf(name, { rule: 'failing_for', failures: 7, since: '2026-01-01T00:00:00.000Z' }, 'HTTP 503', 432_000_000)).toBe(
    'webhook 0 (https://hooks.example.com/in/orders) has failed every dispatch for more than 120 h, since 2026-01-01T00:00:00.000Z (7 dispatches; last error: HTTP 503)',
  );
});

test('DeactivateTrigger: an active trigger records TriggerDeactivated with the reason; an inactive one nothing; a deleted one NotFound', () => {
  const cmd = { type: 'DeactivateTrigger', data: { trigger_id: id, reason: 'webhook 0 answered 410 Gone' } } as const;
  const off: TriggerEvent = {
    type: 'TriggerDeactivated',
    data: { schema_version: 1, trigger_id: id, reason: 'webhook 0 answered 410 Gone' },
  };
  expect(decide(cmd, [created].reduce(evolve, initialState))).toEqual(E.right([off]));
  expect(decide(cmd, [created, off].reduce(evolve, initialState))).toEqual(E.right([]));
  expect(
    decide(
      cmd,
      [created, { type: 'TriggerDeleted', data: { schema_version: 1, trigger_id: id } } as TriggerEvent].reduce(evolve, initialState),
    ),
  ).toEqual(E.left({ _tag: 'NotFound', ids: [id] }));
});

test('the reason stays while the trigger stays inactive, and goes when it is activated or deactivated by hand', () => {
  const off: TriggerEvent = { type: 'TriggerDeactivated', data: { schema_version: 1, trigger_id: id, reason: 'r' } };
  const on: TriggerEvent = { type: 'TriggerActivated', data: { schema_version: 1, trigger_id: id } };
  const edit = (active: boolean): TriggerEvent => ({
    type: 'TriggerUpdated',
    data: { schema_version: 1, trigger_id: id, definition: { ...def, active, payload: 1 } },
  });
  const reasonAfter = (...events: TriggerEvent[]) => {
    let view: TriggerView | null | undefined;
    [created, ...events].forEach((e, i) => {
      view = evolveView(view ?? undefined, e, { revision: i, occurred_at: at(i).toISOString() });
    });
    return view ? (toResource(view) as { deactivated_reason?: string }).deactivated_reason : 'deleted';
  };
  expect(reasonAfter(off)).toBe('r');
  expect(reasonAfter(off, edit(false))).toBe('r');
  expect(reasonAfter(off, edit(true))).toBeUndefined();
  expect(reasonAfter(off, on)).toBeUndefined();
  expect(reasonAfter(off, on, { type: 'TriggerDeactivated', data: { schema_version: 1, trigger_id: id } })).toBeUndefined();
});

test('a stored TriggerDeactivated is read back with its reason, and without one when it has none', () => {
  const raw = (data: unknown) => ({ type: 'TriggerDeactivated', data, streamId: `action_trigger-${id}`, revision: 1n });
  expect(readStoredEvent(raw({ schema_version: 1, trigger_id: id, reason: 'r' })).data).toEqual({
    schema_version: 1,
    trigger_id: id,
    reason: 'r',
  });
  expect(readStoredEvent(raw({ schema_version: 1, trigger_id: id })).data).toEqual({ schema_version: 1, trigger_id: id });
  expect(() => readStoredEvent(raw({ schema_version: 1, trigger_id: id, reason: 7 }))).toThrow(UnreadableEvent);
});
