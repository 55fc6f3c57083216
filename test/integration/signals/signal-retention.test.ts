import request from 'supertest';
import { Client, Connection } from '@temporalio/client';
import { configFrom, retrySettingsOf } from '../../../src/config';
import { startRetention } from '../../../src/signals/intake/retention';
import { silentLogger } from '../../../src/kernel/logger';
import { createDispatchClient } from '../../../src/temporal/dispatch-client';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { freePort } from '../../support/free-port';
import { startReceiver, Receiver } from '../../support/receiver';
import { startTestApp } from '../../support/test-app';
import { waitForDispatch } from '../../support/signals';
import { triggerBody } from '../../support/trigger-body';

/** Stored signals, their delivery records and the turns of instance orders are kept for the retention window, then removed; trigger streams never are. */
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
});

const trigger = (model: string) => triggerBody({ app: 'kept', model, webhooks: [{ url: rx.url(`/${model}`), http_method: 'POST' }] });
const signal = (model: string, id: string) => ({ id, signal: 'post_save', app_label: 'kept', model_name: model, instance: { id } });

test('past the window signals, delivery records and turns are removed from the store (an unmatched one is 404, its id new again); the trigger stays', async () => {
  const h = await startDispatchHarness({});
  try {
    const created = await request(h.app).post('/api/action-triggers').send(trigger('old')).expect(201);
    const inOrder = await request(h.app)
      .post('/api/action-triggers')
      .send({ ...trigger('inorder'), ordering: 'per_instance' })
      .expect(201);
    await request(h.app).post('/api/signals').send(signal('old', 'kept-1')).expect(202);
    await request(h.app).post('/api/signals').send(signal('nothing', 'kept-2')).expect(202);
    await request(h.app).post('/api/signals').send(signal('inorder', 'kept-3')).expect(202);
    await waitForDispatch(h.app, 'kept-1');
    await waitForDispatch(h.app, 'kept-2');
    await waitForDispatch(h.app, 'kept-3');
    const turns = `ordered-${inOrder.body.id as string}-kept-3`;
    expect((await h.store.read(turns)).map((e) => e.type).sort()).toEqual(['DispatchQueued', 'TurnEnded']);
    // The small dispatch sent its first attempt locally, so the delivered ledger has it.
    expect((await h.store.read('delivered-signal-kept-1')).map((e) => e.type)).toEqual(['ActionDelivered']);
    // Within the window: kept, and the same id is a duplicate.
    const within = startRetention(h.store, 60_000, silentLogger);
    await within.sweep();
    await within.stop();
    expect((await request(h.app).post('/api/signals').send(signal('old', 'kept-1')).expect(202)).body).toMatchObject({ duplicate: true });
    // Past it (the relay has passed both): removed.
    await new Promise((r) => setTimeout(r, 2000)); // the relay saves its checkpoint with its next lease renewal
    const listed = async () => (await request(h.app).get('/api/signals?limit=100').expect(200)).body.items.map((i: { id: string }) => i.id);
    expect(await listed()).toEqual(['kept-3', 'kept-2', 'kept-1']);
    const past = startRetention(h.store, 1, silentLogger, h.readModel);
    await past.sweep();
    await past.stop();
    // The signal list forgets them too.
    expect(await listed()).toEqual([]);
    // The unmatched one is gone; the dispatched one is still told by its workflow (Temporal keeps it for its own retention).
    await request(h.app).get('/api/signals/kept-2').expect(404);
    expect(await h.store.read('delivered-signal-kept-1')).toEqual([]);
    expect(await h.store.read(turns)).toEqual([]);
    const told = (await request(h.app).get('/api/signals/kept-1').expect(200)).body;
    expect(told).toMatchObject({ state: 'completed' });
    expect(told.accepted_at).toBeUndefined();
    await request(h.app).get(`/api/action-triggers/${created.body.id}`).expect(200);
    expect((await request(h.app).post('/api/signals').send(signal('old', 'kept-2')).expect(202)).body).toMatchObject({ duplicate: false });
  } finally {
    await h.close();
  }
}, 60_000);

test('a signal the relay has not passed is kept however old (Temporal away)', async () => {
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 });
  const dispatch = createDispatchClient(new Client({ connection }), 'none', retrySettingsOf(configFrom({})));
  const t = await startTestApp({ allow_private_targets: true }, undefined, { dispatch });
  try {
    await request(t.app).post('/api/action-triggers').send(trigger('waiting')).expect(201);
    await request(t.app).post('/api/signals').send(signal('waiting', 'waiting-1')).expect(202);
    const sweep = startRetention(t.store, 1, silentLogger, t.readModel);
    await new Promise((r) => setTimeout(r, 50));
    await sweep.sweep();
    await sweep.stop();
    expect((await request(t.app).get('/api/signals/waiting-1').expect(200)).body).toMatchObject({ state: 'queued' });
    // Listing queued signals needs nothing from Temporal (away here).
    expect((await request(t.app).get('/api/signals?state=queued').expect(200)).body.items).toEqual([
      expect.objectContaining({ id: 'waiting-1', state: 'queued' }),
    ]);
  } finally {
    await t.close();
    await connection.close();
  }
}, 60_000);
