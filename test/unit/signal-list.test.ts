import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadModel } from '../../src/projections/read-model';
import { acceptedEvent, signalStreamOf } from '../../src/model/signals/signal-record';
import type { StoredEvent } from '../../src/event-store/port';
import { listSignals } from '../../src/signals/list/list';

/**
 * The list's own rules, on a real read-model file: how much of Temporal a page asks for. Temporal
 * here answers like a server that keeps no workflows (visibility empty, describe: none), and
 * counts the calls; test/integration/signals/signals-list.test.ts runs the real one.
 */
const HOUR = 3_600_000;
const now = Date.parse('2026-11-22T12:00:00Z');
const trigger = '0190a000-0000-7000-8000-000000000001';

const setup = (ages: number[]) => {
  const model = openReadModel(join(mkdtempSync(join(tmpdir(), 'at-signal-list-')), 'read-model.sqlite'));
  const events = ages.map((age, i): StoredEvent => {
    const id = `s-${i}`;
    const e = acceptedEvent(
      {
        signal: { id, signal: 'post_save', app_label: 'a', model_name: 'b', instance: {}, occurred_at: new Date(now - age).toISOString() },
        plan: {
          triggers: [{ triggerId: trigger, version: 1 }],
          actions: [{ deliveryId: `${id}.x.w0`, triggerId: trigger, version: 1, kind: 'webhook', index: 0, timeoutSecs: 10 }],
        },
        not_matched: [],
        not_matched_truncated: false,
      },
      new Date(now - age),
    );
    return { ...e, streamId: signalStreamOf(id), revision: 0n, position: BigInt(i + 1) };
  });
  model.applySignals(events);
  const calls = { states: 0, describes: 0 };
  const dispatch = {
    statesOf: async (ids: readonly string[]) => {
      calls.states += ids.length > 0 ? 1 : 0;
      return new Map();
    },
    status: async () => {
      calls.describes++;
      return undefined;
    },
  };
  return { model, calls, dispatch };
};

test('old signals Temporal no longer knows are expired without a describe each; recent ones are asked directly', async () => {
  const { model, calls, dispatch } = setup([2 * HOUR, 2 * HOUR, 2 * HOUR, 60_000]);
  const page = await listSignals(model, dispatch, 100n, { limit: 10 }, now);
  expect(page.items.map((i) => [i.id, i.state])).toEqual([
    ['s-3', 'expired'],
    ['s-2', 'expired'],
    ['s-1', 'expired'],
    ['s-0', 'expired'],
  ]);
  expect(calls).toEqual({ states: 1, describes: 1 });
  model.close();
});

test('state=queued asks Temporal nothing, however many signals it passes', async () => {
  const { model, calls, dispatch } = setup(Array.from({ length: 250 }, () => 60_000));
  // The relay has passed the first 240: the 10 newest are queued.
  const page = await listSignals(model, dispatch, 240n, { limit: 20, state: 'queued' }, now);
  expect(page.items.map((i) => i.id)).toEqual(Array.from({ length: 10 }, (_, k) => `s-${249 - k}`));
  expect(page.next).toBeUndefined();
  expect(calls).toEqual({ states: 0, describes: 0 });
  model.close();
});

test('a state filter looks at no more than 1,000 signals per request, and the cursor goes on from there', async () => {
  const { model, dispatch } = setup(Array.from({ length: 1500 }, () => 2 * HOUR));
  const first = await listSignals(model, dispatch, 2000n, { limit: 20, state: 'running' }, now);
  expect(first.items).toEqual([]);
  expect(first.next).toBe(501n);
  const second = await listSignals(model, dispatch, 2000n, { limit: 20, state: 'running', before: first.next! }, now);
  expect(second).toEqual({ items: [] });
  model.close();
});
