import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import request from 'supertest';
import { EventStore } from '../../src/event-store/port';
import { createHttpServer, listen } from '../../src/http/server';
import { createEventStreams, EventStreamOptions } from '../../src/audit/stream';
import { silentLogger } from '../../src/logger';
import { feedEvent } from '../../src/audit/feed';
import { rmSync } from 'node:fs';
import { aTrigger, startTestApp, tempDir } from '../support/test-app';
import { startServerProcess, stopServerProcess } from '../support/server-process';
import { testServers } from '../support/servers';
import { openSse, SseMessage } from '../support/sse-client';

/** GET /api/events/stream on a real server (node:http, the service's timeouts made short), read by a raw client. */
type App = Awaited<ReturnType<typeof startTestApp>>;
const trigger = aTrigger({ msg_broker_queues: [] });

/** Counts the store subscriptions open: each stream must close its own. */
const counting = (store: EventStore) => {
  let open = 0;
  const wrapped: EventStore = {
    ...store,
    subscribe: (from, handler, onError, options) => {
      open++;
      const sub = store.subscribe(from, handler, onError, options);
      return { close: async () => { await sub.close(); open--; } };
    },
  };
  return { wrapped, open: () => open };
};

const startServer = async (eventStreams: EventStreamOptions) => {
  let subs!: ReturnType<typeof counting>;
  const t = await startTestApp({}, undefined, undefined, {}, undefined, (store) => {
    subs = counting(store);
    return { store: subs.wrapped, eventStreams: createEventStreams(subs.wrapped, silentLogger, eventStreams) };
  });
  // Timeouts far shorter than the stream lives: they must not cut it.
  const server = await listen(createHttpServer(t.app, { headersMs: 300, requestMs: 300, keepAliveMs: 100, checkIntervalMs: 100 }), '127.0.0.1', 0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events/stream`;
  return { t, server, url, subs };
};

const stop = async (t: App, server: Server) => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
};

const create = async (t: App, n: number) => {
  for (let i = 0; i < n; i++) await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
};

const until = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('the stream sends the backlog then live events; a reconnect with Last-Event-ID resumes without loss or duplicates', async () => {
  const { t, server, url } = await startServer({ maxStreams: 10, heartbeatMs: 200 });
  try {
    await create(t, 3);
    const first = await openSse(url);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    await first.waitFor((m) => m.length === 3);
    await create(t, 1);
    await first.waitFor((m) => m.length === 4);
    first.close();
    // Written while no client listened.
    await create(t, 2);
    const lastSeen = first.messages[first.messages.length - 1]!.id!;
    const second = await openSse(url, { 'Last-Event-ID': lastSeen });
    await second.waitFor((m) => m.length === 2);
    await create(t, 1);
    await second.waitFor((m) => m.length === 3);
    // Past the server's request timeout (300 ms): still open, heartbeats keep coming, live events too.
    await new Promise((r) => setTimeout(r, 800));
    expect(second.comments()).toBeGreaterThanOrEqual(3);
    await create(t, 1);
    await second.waitFor((m) => m.length === 4);
    second.close();

    const all: SseMessage[] = [...first.messages, ...second.messages];
    const stored = await t.store.readCategory('action_trigger', 'start', 1000);
    expect(all.map((m) => m.id)).toEqual(stored.map((e) => e.position.toString()));
    expect(all.map((m) => JSON.parse(m.data) as unknown)).toEqual(stored.map((e) => JSON.parse(JSON.stringify(feedEvent(e))) as unknown));
    expect(all.every((m) => m.event === 'TriggerCreated')).toBe(true);
  } finally {
    await stop(t, server);
  }
});

test('?after= starts the stream after a position; Last-Event-ID wins over it; bad ones are 400', async () => {
  const { t, server, url } = await startServer({ maxStreams: 10, heartbeatMs: 1000 });
  try {
    await create(t, 3);
    const positions = (await t.store.readCategory('action_trigger', 'start', 10)).map((e) => e.position.toString());
    const after = await openSse(`${url}?after=${positions[0]!}`);
    expect((await after.waitFor((m) => m.length === 2)).map((m) => m.id)).toEqual(positions.slice(1));
    after.close();
    const both = await openSse(`${url}?after=${positions[0]!}`, { 'Last-Event-ID': positions[1]! });
    expect((await both.waitFor((m) => m.length === 1)).map((m) => m.id)).toEqual(positions.slice(2));
    both.close();
    const badHeader = await request(t.app).get('/api/events/stream').set('Last-Event-ID', 'abc').expect(400);
    expect((badHeader.body as { errors: Array<{ path: string }> }).errors[0]!.path).toBe('header:Last-Event-ID');
    const badQuery = await request(t.app).get('/api/events/stream?after=-3').expect(400);
    expect((badQuery.body as { errors: Array<{ path: string }> }).errors[0]!.path).toBe('query.after');
  } finally {
    await stop(t, server);
  }
});

test('opening and closing 50 streams leaves no subscription open; past the bound a stream is 503 with Retry-After', async () => {
  const { t, server, url, subs } = await startServer({ maxStreams: 5, heartbeatMs: 1000 });
  try {
    const base = subs.open();
    await create(t, 1);
    for (let round = 0; round < 10; round++) {
      const streams = await Promise.all(Array.from({ length: 5 }, () => openSse(url)));
      await Promise.all(streams.map((s) => s.waitFor((m) => m.length === 1)));
      expect(subs.open()).toBe(base + 5);
      const refused = await openSse(url);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      streams.forEach((s) => s.close());
      await until(() => subs.open() === base);
    }
    expect(subs.open()).toBe(base);
    await request(t.app).get('/api/events').expect(200);
    await request(t.app).get('/healthz').expect(200);
  } finally {
    await stop(t, server);
  }
});

test('SIGTERM ends open event streams: the server process stops instead of waiting for the clients', async () => {
  const dir = tempDir();
  try {
    const server = await startServerProcess({ DATA_DIR: dir, WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath }, 60_000);
    const created = await fetch(`${server.url}/api/action-triggers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trigger) });
    expect(created.status).toBe(201);
    const stream = await openSse(`${server.url}/api/events/stream`);
    await stream.waitFor((m) => m.length === 1);
    const ended = new Promise<void>((r) => stream.onEnd(r));
    const stopped = Date.now();
    expect(await stopServerProcess(server, 'SIGTERM')).toBe(0);
    await ended;
    expect(Date.now() - stopped).toBeLessThan(10_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
