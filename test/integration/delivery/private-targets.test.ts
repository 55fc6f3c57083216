import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import request from 'supertest';
import { isPrivateAddress } from '../../../src/kernel/hosts';
import { TARGET_REFUSED } from '../../../src/destinations/port/target-guard';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { storeTrigger } from '../../support/store-trigger';
import { triggerBody } from '../../support/trigger-body';

type Harness = Awaited<ReturnType<typeof startDispatchHarness>>;

const storeWebhooks = (h: Harness, modelName: string, urls: string[]) =>
  storeTrigger(h, triggerBody({ model: modelName, webhooks: urls.map((url) => ({ url, http_method: 'POST' })) }));

const emit = async (h: Harness, modelName: string, instance: Record<string, unknown> = {}) =>
  (await request(h.app).post('/api/signals').send({ signal: 'post_save', app_label: 'shop', model_name: modelName, instance }).expect(202))
    .body.id as string;

let rx: Awaited<ReturnType<typeof startReceiver>>;
let h: Harness;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({ allow_private_targets: false });
});
afterAll(async () => {
  await h.close();
  await rx.close();
});

test('with allow_private_targets off, every spelling of a loopback target fails at once with one fixed message, and nothing is sent', async () => {
  const port = new URL(rx.url('/')).port;
  const targets = [
    `http://127.0.0.1:${port}/dotted`,
    `http://[::ffff:127.0.0.1]:${port}/mapped-dotted`,
    `http://[::ffff:7f00:1]:${port}/mapped-hex`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${port}/mapped-long`,
    `http://[::ffff:0.0.0.0]:${port}/mapped-any`,
    `http://2130706433:${port}/decimal`,
    `http://0x7f.1:${port}/hex`,
    `http://127.1:${port}/short`,
    `http://017700000001:${port}/octal`,
    `http://0.0.0.0:${port}/any`,
    `http://localhost:${port}/name`,
    `http://LOCALHOST.:${port}/name-dot`,
    `http://a.b.localhost:${port}/sub`,
    `http://[::1]:${port}/v6-loopback`,
  ];
  await storeWebhooks(h, 'loopback', targets);
  const status = await waitForDispatch(h.app, await emit(h, 'loopback'));
  expect(status.actions).toHaveLength(targets.length);
  for (const action of status.actions) {
    expect(action).toEqual(expect.objectContaining({ state: 'failed', attempts: 1, last_error: TARGET_REFUSED }));
  }
  expect(rx.received).toHaveLength(0);
});

test('a DNS name that resolves to loopback is refused the same way, without echoing the address', async () => {
  const port = new URL(rx.url('/')).port;
  // This machine's own name resolves (through /etc/hosts) to a loopback or private address, as an
  // attacker's DNS name would: the answer is checked, then the socket's peer.
  const name = hostname().toUpperCase();
  expect(isPrivateAddress((await lookup(name)).address)).toBe(true);
  await storeWebhooks(h, 'dns', [`http://${name}:${port}/a`]);
  const status = await waitForDispatch(h.app, await emit(h, 'dns'));
  for (const action of status.actions) expect([action.state, action.last_error, action.attempts]).toEqual(['failed', TARGET_REFUSED, 1]);
  expect(JSON.stringify(status)).not.toMatch(/127\.0\.0\.1|::1/);
  expect(rx.received).toHaveLength(0);
});
