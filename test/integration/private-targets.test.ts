import request from 'supertest';
import { startDispatchHarness } from '../support/dispatch-harness';
import { startReceiver } from '../support/receiver';
import { waitForDispatch } from '../support/signals';

test('with allow_private_targets off, a loopback webhook is refused without retrying and nothing is sent', async () => {
  const rx = await startReceiver();
  const h = await startDispatchHarness({ allow_private_targets: false });
  try {
    await request(h.app).post('/api/action-triggers').send({
      config_signals: [{ signal: 'post_save' }], content_types: [{ app_label: 'shop', model_name: 'order' }], active: true,
      webhooks: [{ url: rx.url('/ip'), http_method: 'POST' }, { url: rx.url('/name').replace('127.0.0.1', 'localhost'), http_method: 'POST' }],
    }).expect(201);
    const s = (await request(h.app).post('/api/signals').send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: {} }).expect(202)).body;
    const status = await waitForDispatch(h.app, s.id);
    expect(status.actions).toEqual([
      expect.objectContaining({ state: 'failed', attempts: 1, last_error: expect.stringContaining('private or loopback') }),
      expect.objectContaining({ state: 'failed', attempts: 1, last_error: expect.stringContaining('private or loopback') }),
    ]);
    expect(rx.received).toHaveLength(0);
  } finally {
    await h.close();
    await rx.close();
  }
});
