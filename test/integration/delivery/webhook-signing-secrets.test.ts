import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createLogger } from '../../../src/kernel/logger';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Received, Receiver } from '../../support/receiver';
import { tempDir } from '../../support/test-app';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * A signing secret per webhook, checked by a receiver using the official Standard Webhooks
 * library: each webhook is signed with its own secrets, during a rotation with the old and the
 * new one (either verifies), after the old one's expiry with the new one alone; a message signed
 * for another webhook does not verify. No secret appears in any answer, event or log line.
 */
const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const [GLOBAL, ORDERS_NEW, ORDERS_OLD, REFUNDS] = [secret(), secret(), secret(), secret()];
const SECRETS = [GLOBAL, ORDERS_NEW, ORDERS_OLD, REFUNDS];
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();
const PAST = new Date(Date.now() - 60_000).toISOString();

let rx: Receiver;
const logLines: string[] = [];
let refundsFile: string;
beforeAll(async () => {
  rx = await startReceiver();
  refundsFile = join(tempDir(), 'refunds-secret');
  writeFileSync(refundsFile, `${REFUNDS}\n`);
});
afterAll(() => rx?.close());

const harness = (ordersOldExpires: string) =>
  startDispatchHarness(
    {
      signing_secret: GLOBAL,
      signing_secrets: {
        orders: [{ secret: ORDERS_NEW }, { secret: ORDERS_OLD, expires_at: ordersOldExpires }],
        refunds: [{ secret_file: refundsFile }],
      },
    },
    { log: createLogger('debug', (line) => logLines.push(line)) },
  );

const verifies = (key: string, r: Received) => {
  try {
    new StandardWebhook(key).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

/** One signal to a trigger with three webhooks (orders, refunds, the global secret); their requests by path. */
const deliver = async (h: Awaited<ReturnType<typeof harness>>, tag: string) => {
  const model = `order${tag}`;
  const trigger = await postTrigger(
    h.app,
    triggerBody({
      model,
      msg_broker_queues: [],
      webhooks: [
        { url: rx.url(`/${tag}/orders`), http_method: 'POST', signing_secret: 'orders' },
        { url: rx.url(`/${tag}/refunds`), http_method: 'POST', signing_secret: 'refunds' },
        { url: rx.url(`/${tag}/global`), http_method: 'POST' },
      ],
      payload: { id: '{{ instance.id }}' },
    }),
  );
  const s = (
    await request(h.app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
      .expect(202)
  ).body as { id: string };
  await waitForDispatch(h.app, s.id, (x) => x.state === 'completed', 60_000);
  const [orders, refunds, global] = ['orders', 'refunds', 'global'].map((p) => rx.on(`/${tag}/${p}`)[0]!);
  return { model, trigger, signal: s, orders: orders!, refunds: refunds!, global: global! };
};

test('during a rotation both secrets verify; each webhook verifies only with its own secrets; nothing echoes a secret', async () => {
  const h = await harness(FUTURE);
  try {
    const { model, trigger, signal, orders, refunds, global } = await deliver(h, 'during');
    expect(String(orders.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(ORDERS_NEW, orders), verifies(ORDERS_OLD, orders), verifies(REFUNDS, orders), verifies(GLOBAL, orders)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([verifies(REFUNDS, refunds), verifies(ORDERS_NEW, refunds), verifies(GLOBAL, refunds)]).toEqual([true, false, false]);
    expect([verifies(GLOBAL, global), verifies(ORDERS_NEW, global)]).toEqual([true, false]);

    const dry = (
      await request(h.app)
        .post(`/api/action-triggers/${trigger.id}/test`)
        .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
        .expect(200)
    ).body as { actions: Array<{ request: { headers: Record<string, string> } }> };
    expect(dry.actions.map((a) => a.request.headers['webhook-signature'])).toEqual([
      '(computed at send time) (computed at send time)',
      '(computed at send time)',
      '(computed at send time)',
    ]);
    const seen = [
      (await request(h.app).get(`/api/action-triggers/${trigger.id}`).expect(200)).text,
      (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).text,
      (await request(h.app).get('/api/events').expect(200)).text,
      (await request(h.app).get(`/api/signals/${signal.id}`).expect(200)).text,
      (
        await request(h.app)
          .post(`/api/action-triggers/${trigger.id}/test`)
          .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
          .expect(200)
      ).text,
      (await request(h.app).get('/api/openapi.json').expect(200)).text,
      ...logLines,
    ].join('\n');
    expect(seen).toContain('"signing_secret":"orders"');
    for (const s of SECRETS) expect(seen).not.toContain(s.slice('whsec_'.length));
  } finally {
    await h.close();
  }
}, 120_000);

test('after the old secret expires, only the new one verifies', async () => {
  const h = await harness(PAST);
  try {
    const { orders } = await deliver(h, 'after');
    expect(String(orders.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([verifies(ORDERS_NEW, orders), verifies(ORDERS_OLD, orders)]).toEqual([true, false]);
  } finally {
    await h.close();
  }
}, 120_000);

test('a webhook naming a secret the config lacks is refused at write time, by field path', async () => {
  const h = await harness(FUTURE);
  try {
    const res = await request(h.app)
      .post('/api/action-triggers')
      .send(triggerBody({ msg_broker_queues: [], webhooks: [{ url: rx.url('/x'), http_method: 'POST', signing_secret: 'order' }] }))
      .expect(400);
    expect(res.body.errors).toEqual([
      { path: 'webhooks[0].signing_secret', message: "must name an entry of the config's signing_secrets (orders, refunds)" },
    ]);
  } finally {
    await h.close();
  }
}, 60_000);
