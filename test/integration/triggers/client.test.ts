import { Server } from 'node:http';
import { ApiError, createClient, RedirectRefused } from '@action-triggers/client';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({});
  server = await new Promise<Server>((r) => {
    const s = h.app.listen(0, '127.0.0.1', () => r(s));
  });
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await h.close();
  await rx.close();
});

test('manages triggers: create, get, list with cursor, patch with If-Match, history, delete', async () => {
  const client = createClient({ baseUrl });
  const created = await client.triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'crm', model_name: 'lead' }],
    active: true,
  });
  await client.triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'crm', model_name: 'lead' }],
    active: true,
  });
  expect((await client.triggers.get(created.id)).version).toBe(1);
  const first = await client.triggers.list({ app_label: 'crm', limit: 1 });
  expect(first.items).toHaveLength(1);
  const second = await client.triggers.list({ app_label: 'crm', limit: 1, cursor: first.nextCursor });
  expect(second.items[0]!.id).not.toBe(first.items[0]!.id);
  const patched = await client.triggers.patch(created.id, { active: false }, 1);
  expect(patched).toMatchObject({ active: false, version: 2 });
  await expect(client.triggers.patch(created.id, { active: true }, 1)).rejects.toMatchObject({ status: 412 });
  const bad = await client.triggers.create({ config_signals: [], content_types: [], active: true }).catch((e: unknown) => e);
  expect(bad).toBeInstanceOf(ApiError);
  expect((bad as ApiError).problem.errors?.map((e) => e.path)).toEqual(['config_signals', 'content_types']);
  expect((await client.triggers.history(created.id)).map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated']);
  const page1 = await client.triggers.historyPage(created.id, { limit: 1 });
  expect([page1.items.map((e) => e.version), page1.nextAfter]).toEqual([[1], 1]);
  const page2 = await client.triggers.historyPage(created.id, { after: page1.nextAfter, limit: 1 });
  expect([page2.items.map((e) => e.type), page2.nextAfter]).toEqual([['TriggerDeactivated'], undefined]);
  await client.triggers.delete(created.id);
  await expect(client.triggers.get(created.id)).rejects.toMatchObject({ status: 404 });
});

test('dry runs: a stored trigger and a trigger body, nothing sent', async () => {
  const client = createClient({ baseUrl });
  const trigger = {
    config_signals: [{ signal: 'post_save' as const }],
    content_types: [{ app_label: 'crm', model_name: 'deal' }],
    active: true,
    webhooks: [{ url: rx.url('/client-dry'), http_method: 'POST' as const }],
    payload: { deal: '{{ instance.id }}' },
  };
  const created = await client.triggers.create(trigger);
  const stored = await client.triggers.dryRun(created.id, { signal: 'post_save', instance: { id: 3 } });
  expect(stored.actions[0]!.request!.body).toBe('{"deal":3}');
  const body = await client.triggers.dryRunBody(trigger, { signal: 'post_save', instance: {} });
  expect(body.actions[0]!.warnings).toEqual(['instance.id is missing']);
  expect(rx.on('/client-dry')).toHaveLength(0);
});

test('redeliver: a failed webhook sent again with its delivery id, its redelivery readable; asking while nothing is left is a 409', async () => {
  const client = createClient({ baseUrl });
  await client.triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'shop', model_name: 'again' }],
    active: true,
    webhooks: [{ url: rx.url('/again'), http_method: 'POST' }],
  });
  rx.script(
    '/again',
    Array.from({ length: 5 }, () => ({ status: 503 })),
  );
  const accepted = await client.signals.emit({ signal: 'post_save', app_label: 'shop', model_name: 'again', instance: { id: 1 } });
  let status = await client.signals.status(accepted.id);
  for (let i = 0; i < 300 && status.state !== 'completed'; i++)
    status = await new Promise((r) => setTimeout(r, 100)).then(() => client.signals.status(accepted.id));
  expect(status.actions[0]).toMatchObject({ state: 'failed' });
  const queued = await client.signals.redeliver(accepted.id, { mode: 'as_dispatched' });
  expect(queued).toMatchObject({ number: 1, delivery_ids: [status.actions[0]!.delivery_id], state: 'queued' });
  let again = await client.signals.redelivery(accepted.id, 1);
  for (let i = 0; i < 100 && again.state !== 'completed'; i++)
    again = await new Promise((r) => setTimeout(r, 100)).then(() => client.signals.redelivery(accepted.id, 1));
  expect(again.actions[0]).toMatchObject({ state: 'delivered', delivery_id: status.actions[0]!.delivery_id });
  expect(new Set(rx.on('/again').map((r) => r.headers['webhook-id']))).toEqual(new Set([status.actions[0]!.delivery_id]));
  await expect(client.signals.redeliver(accepted.id, { mode: 'as_dispatched' })).rejects.toMatchObject({ status: 409 });
}, 60_000);

test('a signal whose response is lost is retried with the same id and dispatched once', async () => {
  const base = createClient({ baseUrl });
  await base.triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'shop', model_name: 'lost' }],
    active: true,
    webhooks: [{ url: rx.url('/lost'), http_method: 'POST' }],
  });
  let calls = 0;
  // The first POST reaches the server, then the connection "drops" before the answer arrives.
  const flakyFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && ++calls === 1) throw new TypeError('fetch failed: socket hang up');
    return res;
  };
  const client = createClient({ baseUrl, fetch: flakyFetch });
  const accepted = await client.signals.emit({ signal: 'post_save', app_label: 'shop', model_name: 'lost', instance: { id: 1 } });
  expect(calls).toBe(2);
  expect(accepted.duplicate).toBe(true);
  for (let i = 0; i < 100 && (await client.signals.status(accepted.id)).state !== 'completed'; i++)
    await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
  expect(rx.on('/lost')).toHaveLength(1);
});

test('a redirect is never followed: no request reaches the other origin, the key stays here, and nothing counts as sent', async () => {
  const elsewhere = await startReceiver({ status: 200 });
  const redirector = await startReceiver();
  try {
    for (const status of [301, 302, 303, 307, 308]) {
      redirector.respond(() => ({ status, headers: { location: elsewhere.url('/api/signals') } }));
      const client = createClient({ baseUrl: redirector.url(''), apiKey: 'the-key' });
      const emitted = await client.signals
        .emit({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } })
        .catch((e: unknown) => e);
      expect(emitted).toBeInstanceOf(RedirectRefused);
      expect(emitted).toMatchObject({ status, location: elsewhere.url('/api/signals') });
      await expect(client.triggers.list()).rejects.toBeInstanceOf(RedirectRefused);
    }
    expect(redirector.received.every((r) => r.headers.authorization === 'Bearer the-key')).toBe(true);
    expect(elsewhere.received).toEqual([]);
  } finally {
    await elsewhere.close();
    await redirector.close();
  }
});
