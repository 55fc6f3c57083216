import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore, StoredEvent } from '../../src/event-store/port';
import { openSqliteStore } from '../../src/event-store/sqlite';
import { parseAsOf, triggerAsOf } from '../../src/triggers/as-of';

const ID = '0190a5d8-0000-7000-8000-000000000001';
const definition = (active: boolean) => ({
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: 'a', model_name: 'b' }],
  active,
  webhooks: [],
  msg_broker_queues: [],
});
const at = (type: string, revision: number, occurred_at: string, data: Record<string, unknown> = {}): StoredEvent => ({
  type,
  streamId: `action_trigger-${ID}`,
  revision: BigInt(revision),
  position: BigInt(revision + 1),
  data: { schema_version: 1, trigger_id: ID, ...data },
  metadata: { actor: 'a', request_id: 'r', occurred_at },
});

test('as_of finds the first event after it by bisection (a clock that went backwards never mixes states): about log2(versions) single-event reads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-as-of-'));
  const store = openSqliteStore(join(dir, 'events.sqlite'));
  try {
    const stream = `action_trigger-${ID}`;
    await store.append(
      stream,
      [
        at('TriggerCreated', 0, '2026-01-01T00:00:00.000Z', { definition: definition(true) }),
        at('TriggerUpdated', 1, '2026-01-03T00:00:00.000Z', { definition: definition(false) }),
        // Recorded by a process whose clock was behind: still after the update in the stream.
        at('TriggerDeleted', 2, '2026-01-02T00:00:00.000Z'),
      ],
      'no_stream',
    );
    expect((await triggerAsOf(store, ID, Date.parse('2026-01-02T12:00:00Z')))?.version).toBe(1);
    expect(await triggerAsOf(store, ID, Date.parse('2026-01-03T00:00:00Z'))).toBeUndefined();
    expect(await triggerAsOf(store, ID, Date.parse('2025-12-31T23:59:59.999Z'))).toBeUndefined();

    // 75 events, one a day.
    const other = '0190a5d8-0000-7000-8000-000000000002';
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString();
    await store.append(
      `action_trigger-${other}`,
      Array.from({ length: 75 }, (_, n) => ({
        ...at(n === 0 ? 'TriggerCreated' : 'TriggerUpdated', n, day(n), { definition: { ...definition(n % 2 === 0), payload: { n } } }),
        data: { schema_version: 1, trigger_id: other, definition: { ...definition(n % 2 === 0), payload: { n } } },
      })),
      'no_stream',
    );
    const singles: number[] = [];
    const counting: EventStore = {
      ...store,
      read: (streamId, range) => {
        if (range?.maxCount === 1) singles.push(1);
        return store.read(streamId, range);
      },
    };
    for (const n of [0, 19, 20, 21, 49, 60, 74]) {
      singles.length = 0;
      const view = await triggerAsOf(counting, other, Date.parse(day(n)) + 1000);
      expect(view).toMatchObject({
        version: n + 1,
        definition: { payload: { n }, active: n % 2 === 0 },
        created_at: day(0),
        updated_at: day(n),
      });
      expect(singles.length).toBeLessThanOrEqual(Math.ceil(Math.log2(76)) + 2); // the probes, the last event, a snapshot look-up
    }
    expect(await triggerAsOf(store, other, Date.parse(day(0)) - 1)).toBeUndefined();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parseAsOf takes RFC 3339 with any offset and refuses the rest with the field path', () => {
  expect(parseAsOf('2026-01-01T02:00:00+02:00')).toEqual({ _tag: 'Right', right: Date.parse('2026-01-01T00:00:00Z') });
  expect(parseAsOf(['2026-01-01T00:00:00Z'])).toMatchObject({ _tag: 'Left', left: { path: 'query.as_of' } });
  expect(parseAsOf('2026-02-30T00:00:00Z')).toMatchObject({ _tag: 'Left' });
});
