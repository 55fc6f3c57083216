import request from 'supertest';
import { signalStreamOf, storedSignalOf } from '../../../src/model/signals/signal-record';
import { aTrigger, startTestApp } from '../../support/test-app';

/**
 * Least data: a signal that matches no trigger is kept without its instance (what the service
 * does not need, it does not keep); why it matched nothing stays, read from the store itself.
 */
const signal = (id: string, model: string) => ({
  id,
  signal: 'post_save',
  app_label: 'least',
  model_name: model,
  instance: { id: 7, password: 'pbkdf2_sha256$600000$hash', email: 'someone@example.org' },
});

const stored = async (t: Awaited<ReturnType<typeof startTestApp>>, id: string) =>
  storedSignalOf(await t.store.read(signalStreamOf(id)))!.record;

test('an unmatched signal is stored without its instance, its reason kept; a matched one whole', async () => {
  const t = await startTestApp();
  try {
    const inactive = (
      await request(t.app)
        .post('/api/action-triggers')
        .send(aTrigger({ content_types: [{ app_label: 'least', model_name: 'user' }], msg_broker_queues: [], active: false }))
        .expect(201)
    ).body as { id: string };
    await request(t.app)
      .post('/api/action-triggers')
      .send(aTrigger({ content_types: [{ app_label: 'least', model_name: 'order' }], msg_broker_queues: [] }))
      .expect(201);
    await request(t.app)
      .post('/api/signals')
      .send([signal('least-unwatched', 'session'), signal('least-inactive', 'user'), signal('least-matched', 'order')])
      .expect(202);

    const unwatched = await stored(t, 'least-unwatched');
    expect(unwatched).toMatchObject({ instance_dropped: true, not_matched: [] });
    expect(unwatched.signal.instance).toEqual({});
    const inactiveOne = await stored(t, 'least-inactive');
    expect(inactiveOne.signal.instance).toEqual({});
    expect(inactiveOne.not_matched).toEqual([expect.objectContaining({ trigger_id: inactive.id, reason: 'inactive' })]);
    const matched = await stored(t, 'least-matched');
    expect(matched.signal.instance).toEqual(signal('x', 'order').instance);
    expect(matched.instance_dropped).toBeUndefined();
    // The raw event holds no trace of the dropped instance.
    expect(JSON.stringify((await t.store.read(signalStreamOf('least-inactive'))).map((e) => [e.data, e.metadata]))).not.toContain('pbkdf2');

    const why = (await request(t.app).get('/api/signals/least-inactive').expect(200)).body as {
      state: string;
      reason: string;
      not_matched: unknown[];
    };
    expect(why).toMatchObject({ state: 'unmatched', reason: expect.stringMatching(/no active trigger watches post_save of least\.user/) });
    expect(why.not_matched).toHaveLength(1);
  } finally {
    await t.close();
  }
});

test('signals.keep_unmatched_instances keeps them whole', async () => {
  const t = await startTestApp({ signals: { keep_unmatched_instances: true } });
  try {
    await request(t.app).post('/api/signals').send(signal('kept-unwatched', 'session')).expect(202);
    const kept = await stored(t, 'kept-unwatched');
    expect(kept.signal.instance).toEqual(signal('x', 'session').instance);
    expect(kept.instance_dropped).toBeUndefined();
  } finally {
    await t.close();
  }
});
