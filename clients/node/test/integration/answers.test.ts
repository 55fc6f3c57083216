import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { startReceiver, type Receiver } from '../../../../test/support/receiver';
import { createClient } from '../../src/index.ts';
import { emit, OUTBOX_TABLE, startRelay, type Relay, type RelayEvent } from '../../src/outbox/index.ts';
import { outboxDatabase, startService } from '../support/service';

/**
 * What the relay does with answers other than 202: a redirect is never followed (the API key
 * stays home), a row the service refuses is set aside without holding back the rows after it,
 * and a 503's Retry-After is waited out.
 */
let service: Awaited<ReturnType<typeof startService>>;
let db: Awaited<ReturnType<typeof outboxDatabase>>;
let rx: Receiver;
const running: Relay[] = [];

beforeAll(async () => {
  [service, db, rx] = await Promise.all([startService(), outboxDatabase('answers'), startReceiver()]);
  await createClient({ baseUrl: service.url }).triggers.create({
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'crm', model_name: 'lead' }],
    webhooks: [{ url: rx.url('/leads'), http_method: 'POST' }],
    active: true,
    payload: { lead: '{{ instance.pk }}' },
  });
}, 120_000);

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
  await db.pool.query(`DELETE FROM ${OUTBOX_TABLE}`);
});

afterAll(async () => {
  await db?.pool.end();
  await rx?.close();
  await service?.stop();
});

const relayTo = (url: string, more: { apiKey?: string; log?: (e: RelayEvent) => void } = {}) => {
  const r = startRelay({ pool: db.pool, url, pollIntervalMs: 200, maxBackoffMs: 1_000, log: () => undefined, ...more });
  running.push(r);
  return r;
};

/** A loopback server answering every request with `answer`; it records what it got. */
const stub = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
  const got: Array<{ at: number; headers: IncomingMessage['headers'] }> = [];
  const server: Server = createServer((req, res) => {
    got.push({ at: Date.now(), headers: req.headers });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const lead = (id: number) => ({ signal: 'post_save' as const, app_label: 'crm', model_name: 'lead', instance: { id } });
const rowsOf = async () =>
  (await db.pool.query(`SELECT signal->>'id' AS id, attempts, last_error, set_aside_at FROM ${OUTBOX_TABLE} ORDER BY seq`)).rows as Array<{
    id: string;
    attempts: number;
    last_error: string | null;
    set_aside_at: Date | null;
  }>;

const until = async (done: () => Promise<boolean> | boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test.each([301, 307])(
  'a %i is not followed: the address it names gets nothing, the row waits with the reason; sent once the url is right',
  async (status) => {
    const elsewhere = await stub((_req, res) => res.writeHead(202).end('[]'));
    const redirecting = await stub((_req, res) => res.writeHead(status, { location: `${elsewhere.url}/api/signals` }).end());
    try {
      await emit(db.pool, lead(status));
      relayTo(redirecting.url, { apiKey: 'secret-key' });
      await until(async () => (await rowsOf())[0]!.attempts >= 2);
      expect(redirecting.got[0]!.headers.authorization).toBe('Bearer secret-key');
      expect(elsewhere.got).toEqual([]);
      const [row] = await rowsOf();
      expect(row!.last_error).toBe(
        `${redirecting.url}/api/signals answered ${status}, a redirect to ${elsewhere.url}/api/signals; redirects are never followed (the API key would go along): set url to the final address`,
      );
      expect(row!.set_aside_at).toBeNull();
      await Promise.all(running.splice(0).map((r) => r.stop()));
      relayTo(service.url);
      await rx.waitFor(() => rx.on('/leads').some((r) => JSON.parse(r.body).lead === status));
      expect(elsewhere.got).toEqual([]);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  },
);

test('a row the service refuses is set aside with its reason; the rows after it, of its instance too, are sent', async () => {
  // Written by hand (the SQL file is public): a signal name the service does not know, and a row with no id.
  const bad = { ...lead(2), id: 'bad-row', signal: 'post_update' };
  await db.pool.query(`INSERT INTO ${OUTBOX_TABLE} (id, signal, instance_key) VALUES (gen_random_uuid(), $1::jsonb, 'crm.lead:2')`, [
    JSON.stringify(bad),
  ]);
  await db.pool.query(`INSERT INTO ${OUTBOX_TABLE} (id, signal, instance_key) VALUES (gen_random_uuid(), $1::jsonb, NULL)`, [
    JSON.stringify(lead(4)),
  ]);
  const after = await emit(db.pool, lead(2));
  const other = await emit(db.pool, lead(3));
  const warnings: RelayEvent[] = [];
  const relay = relayTo(service.url, { log: (e) => e.level === 'warn' && warnings.push(e) });
  await rx.waitFor(() => [2, 3].every((n) => rx.on('/leads').some((r) => JSON.parse(r.body).lead === n)));
  await until(async () => (await relay.lag()).waiting === 0);
  const rows = await rowsOf();
  expect(rows.map((r) => [r.id, r.last_error, r.set_aside_at !== null])).toEqual([
    ['bad-row', expect.stringMatching(/^400 .*signal: /), true],
    [null, "the row's signal has no id (written other than with emit?)", true],
  ]);
  expect(await relay.lag()).toMatchObject({ waiting: 0, oldestAgeMs: null, setAside: 2 });
  expect(warnings.map((w) => w.signal_id)).toContain('bad-row');
  const at = createClient({ baseUrl: service.url });
  await expect(at.signals.status(after.id)).resolves.toMatchObject({ id: after.id });
  await expect(at.signals.status(other.id)).resolves.toMatchObject({ id: other.id });
});

test('rows that can never be sent (a number beyond a double, a signal over the size limit) are set aside naming why; the rows after them are sent', async () => {
  const insert = (json: string, key: string) =>
    db.pool.query(`INSERT INTO ${OUTBOX_TABLE} (id, signal, instance_key) VALUES (gen_random_uuid(), $1::jsonb, $2)`, [json, key]);
  // Written by hand: jsonb keeps 1e400 exactly, which JSON parsers read as Infinity.
  await insert(
    `{"id":"huge-number","signal":"post_save","app_label":"crm","model_name":"lead","instance":{"id":6,"score":1e400}}`,
    'crm.lead:6',
  );
  await insert(JSON.stringify({ ...lead(6), id: 'too-big', instance: { id: 6, notes: 'x'.repeat(300_000) } }), 'crm.lead:6');
  const after = await emit(db.pool, lead(6));
  const warnings: RelayEvent[] = [];
  const relay = relayTo(service.url, { log: (e) => e.level === 'warn' && warnings.push(e) });
  await rx.waitFor(() => rx.on('/leads').some((r) => JSON.parse(r.body).lead === 6));
  await until(async () => (await relay.lag()).waiting === 0);
  expect((await rowsOf()).map((r) => [r.id, r.last_error, r.set_aside_at !== null])).toEqual([
    ['huge-number', "the row's signal cannot be sent: signal.instance.score is a number beyond what JSON parsers read (±1.8e308)", true],
    ['too-big', expect.stringMatching(/^the row's signal is \d+ bytes as JSON; the service takes at most 262144 in one signal$/), true],
  ]);
  expect(warnings.map((w) => [w.message, w.signal_id])).toEqual([
    ['signal cannot be sent: set aside', 'huge-number'],
    ['signal cannot be sent: set aside', 'too-big'],
  ]);
  await expect(createClient({ baseUrl: service.url }).signals.status(after.id)).resolves.toMatchObject({ id: after.id });
  await expect(createClient({ baseUrl: service.url }).signals.status('huge-number')).rejects.toMatchObject({ status: 404 });
});

test("a 503's Retry-After is waited out before the next try", async () => {
  const away = await stub((_req, res) =>
    res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '2' }).end('{"title":"Service Unavailable"}'),
  );
  try {
    await emit(db.pool, lead(5));
    relayTo(away.url);
    await until(() => away.got.length >= 2, 10_000);
    expect(away.got[1]!.at - away.got[0]!.at).toBeGreaterThanOrEqual(1_950);
    const [row] = await rowsOf();
    expect(row).toMatchObject({ last_error: '503 Service Unavailable', set_aside_at: null });
  } finally {
    await away.close();
  }
});
