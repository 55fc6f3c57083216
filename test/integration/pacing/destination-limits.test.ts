import request from 'supertest';
import { EventStore, StoreUnavailable } from '../../../src/event-store/port';
import { createPaceStore } from '../../../src/pacing/pace-store';
import { EMPTY, PaceState } from '../../../src/pacing/pace-state';
import { startTestApp } from '../../support/test-app';

/**
 * `GET /api/destinations/limits`: every limit the config sets, with its destination's pace as
 * its stream holds it (written here as the pace activities would), on a clock the test sets.
 */
const READER = 'reader-secret';
const SENDER = 'sender-secret';
const NOW = Date.parse('2030-01-01T12:00:00.000Z');

let t: Awaited<ReturnType<typeof startTestApp>>;
/** While set, every read of the store fails as a store whose server is away. */
let storeAway = false;

/** The store, but its reads fail while `storeAway` is set. */
const awayWhenAsked = (store: EventStore): EventStore =>
  new Proxy(store, {
    get: (target, name) => {
      if (name === 'read' && storeAway)
        return async () => {
          throw new StoreUnavailable('the server is away');
        };
      const value = Reflect.get(target, name) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

beforeAll(async () => {
  t = await startTestApp(
    {
      api_keys: [
        { id: 'reader', key: READER, scopes: ['triggers:read'] },
        { id: 'sender', key: SENDER, scopes: ['signals:write'] },
      ],
      webhook_limits: [{ name: 'orders', url_prefix: 'https://Hooks.example.com/orders', max_per_second: 2, burst: 3 }],
      brokers: {
        events: {
          broker_type: 'rabbitmq',
          conn_details: { url: 'amqp://127.0.0.1:5672' },
          params: { queue: 'e' },
          limits: { max_in_flight: 2 },
        },
        plain: { broker_type: 'rabbitmq', conn_details: { url: 'amqp://127.0.0.1:5672' }, params: { queue: 'p' } },
      },
    },
    undefined,
    undefined,
    {},
    undefined,
    (store) => ({ store: awayWhenAsked(store), now: () => new Date(NOW) }),
  );
});
afterAll(async () => {
  await t.close();
});

const limits = async () =>
  (await request(t.app).get('/api/destinations/limits').set('Authorization', `Bearer ${READER}`).expect(200)).body.limits as Array<
    Record<string, unknown>
  >;

const setPace = (key: string, state: PaceState) => createPaceStore(t.store).change(key, () => ({ state, answer: undefined }));

test('lists each configured limit, webhooks then brokers, with nothing waiting before any delivery', async () => {
  expect(await limits()).toEqual([
    {
      name: 'webhook:orders',
      kind: 'webhook',
      matches: 'https://Hooks.example.com/orders',
      max_per_second: 2,
      burst: 3,
      backlog: 0,
      in_flight: 0,
    },
    { name: 'broker:events', kind: 'broker', matches: 'events', max_in_flight: 2, backlog: 0, in_flight: 0 },
  ]);
});

test("shows each destination's backlog, places held under a live lease, and a pause still ahead", async () => {
  // Two slots reserved past the burst (2 per second: 500 ms apart), and a pause for a minute.
  await setPace('webhook:orders', { ...EMPTY, tat: NOW + 2500, pausedUntil: NOW + 60_000 });
  // Two places held (one lease already ended: not counted), three waiters queued, one given a place.
  await setPace('broker:events', {
    ...EMPTY,
    pausedUntil: NOW - 1,
    holders: [
      { id: 'a#1', until: NOW + 30_000 },
      { id: 'b#1', until: NOW + 30_000 },
      { id: 'c#1', until: NOW - 1 },
    ],
    nextTicket: 3,
    granted: 1,
  });
  const [webhook, broker] = await limits();
  expect(webhook).toMatchObject({ name: 'webhook:orders', backlog: 2, in_flight: 0, paused_until: '2030-01-01T12:01:00.000Z' });
  expect(broker).toMatchObject({ name: 'broker:events', backlog: 2, in_flight: 2 });
  expect(broker).not.toHaveProperty('paused_until');
});

test('a key without triggers:read is 403; no key is 401', async () => {
  const refused = await request(t.app).get('/api/destinations/limits').set('Authorization', `Bearer ${SENDER}`).expect(403);
  expect(refused.body.detail).toContain('triggers:read');
  await request(t.app).get('/api/destinations/limits').expect(401);
});

test('a store that cannot be read is 503 with the reason and Retry-After, not 500', async () => {
  storeAway = true;
  try {
    const res = await request(t.app).get('/api/destinations/limits').set('Authorization', `Bearer ${READER}`).expect(503);
    expect(res.body.detail).toContain('the event store is unavailable: the server is away');
    expect(res.headers['retry-after']).toBeDefined();
  } finally {
    storeAway = false;
  }
});

test('the OpenAPI document describes the route and every field it answers', async () => {
  const doc = (await request(t.app).get('/api/openapi.json').expect(200)).body;
  const operation = doc.paths['/api/destinations/limits'].get;
  expect(Object.keys(operation.responses).sort()).toEqual(['200', '401', '403', '503']);
  const schema = doc.components.schemas.DestinationLimit;
  for (const limit of await limits()) {
    for (const field of Object.keys(limit)) expect([field, schema.properties[field] !== undefined]).toEqual([field, true]);
    for (const field of schema.required) expect(limit).toHaveProperty(field);
  }
});
