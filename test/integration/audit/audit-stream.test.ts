import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import request from 'supertest';
import { EventStore } from '../../../src/event-store/port';
import { createHttpServer, listen } from '../../../src/http/server';
import { createEventStreams, EventStreamOptions, EventStreams } from '../../../src/audit/stream';
import { silentLogger } from '../../../src/kernel/logger';
import { feedEvent } from '../../../src/audit/feed';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { SCHEMA_VERSION, streamOf } from '../../../src/model/triggers/events';
import { aTrigger, startTestApp, tempDir } from '../../support/test-app';
import { startServerProcess, stopServerProcess } from '../../support/server-process';
import { testServers } from '../../support/servers';
import { openSse, SseMessage } from '../../support/sse-client';
import { until } from '../../support/until';

/** GET /api/events/stream on a real server (node:http, the service's timeouts made short), read by a raw client. */
type App = Awaited<ReturnType<typeof startTestApp>>;
const trigger = aTrigger({ msg_broker_queues: [] });

/** Counts the store subscriptions open (each stream must close its own) and, per subscription, the bytes of each batch's data. */
const counting = (store: EventStore) => {
  let open = 0;
  const batches: number[][] = [];
  const wrapped: EventStore = {
    ...store,
    subscribe: (from, handler, onError, options) => {
      open++;
      const mine: number[] = [];
      batches.push(mine);
      const sub = store.subscribe(
        from,
        async (batch) => {
          mine.push(Buffer.byteLength(JSON.stringify(batch.map((e) => e.data))));
          await handler(batch);
        },
        onError,
        options,
      );
      return {
        close: async () => {
          await sub.close();
          open--;
        },
      };
    },
  };
  return { wrapped, open: () => open, batches };
};

const startServer = async (eventStreams: Partial<EventStreamOptions>) => {
  let subs!: ReturnType<typeof counting>;
  let streams!: EventStreams;
  const t = await startTestApp({}, undefined, undefined, {}, undefined, (store) => {
    subs = counting(store);
    streams = createEventStreams(subs.wrapped, silentLogger, eventStreams);
    return { store: subs.wrapped, eventStreams: streams };
  });
  // Timeouts far shorter than the stream lives: they must not cut it.
  const server = await listen(
    createHttpServer(t.app, { headersMs: 300, requestMs: 300, keepAliveMs: 100, checkIntervalMs: 100 }),
    '127.0.0.1',
    0,
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events/stream`;
  return { t, server, url, subs, streams };
};

const stop = async (t: App, server: Server) => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
};

const create = async (t: App, n: number) => {
  for (let i = 0; i < n; i++) await request(t.app).post('/api/action-triggers').send(trigger).expect(201);
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

/** `n` trigger events of about 250 KB each, appended straight to the store. */
const appendLarge = async (store: EventStore, n: number) => {
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    await store.append(
      streamOf(id),
      [
        {
          type: 'TriggerCreated',
          data: {
            schema_version: SCHEMA_VERSION,
            trigger_id: id,
            definition: { ...trigger, payload: { note: `${i} ${'x'.repeat(250_000)}` } },
          },
          metadata: { actor: 'test', request_id: randomUUID(), occurred_at: new Date().toISOString() },
        },
      ],
      'no_stream',
    );
  }
};

/** Sends the request and never reads a byte of the answer. */
const neverRead = (url: string) => {
  const { port, pathname } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.pause();
  socket.on('error', () => undefined);
  socket.write(`GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  return socket;
};

test('a stream reads 1 MiB at a time and no further than its socket took; a client that takes nothing is dropped after stallMs', async () => {
  const readBytes = 1024 * 1024;
  const { t, server, url, subs, streams } = await startServer({ maxStreams: 10, heartbeatMs: 100, stallMs: 1000, readBytes });
  try {
    await appendLarge(t.store, 100);
    const base = subs.open();
    const idle = neverRead(url);
    await until(() => subs.open() === base + 1);
    const reader = await openSse(url);
    await reader.waitFor((m) => m.length === 100, 30_000);
    // The idle client is dropped (its subscription closes); the reader stays, and nothing is held for either.
    await until(() => subs.open() === base + 1, 10_000);
    expect(streams.open()).toBe(1);
    expect(streams.held()).toBe(0);
    const [idleBatches, readerBatches] = subs.batches.slice(-2) as [number[], number[]];
    const total = readerBatches.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(25_000_000);
    // The idle stream read what its socket took (the kernel's buffers) and one batch more: far from all of it.
    expect(idleBatches.reduce((a, b) => a + b, 0)).toBeLessThan(total / 2);
    for (const bytes of [...idleBatches, ...readerBatches]) expect(bytes).toBeLessThanOrEqual(readBytes);
    reader.close();
    idle.destroy();
  } finally {
    await stop(t, server);
  }
}, 120_000);

test('all streams share one budget: while a client that reads nothing holds its batch, a new stream waits (no error); it gets everything once that client is dropped', async () => {
  const { t, server, url, streams } = await startServer({ maxStreams: 10, heartbeatMs: 1000, stallMs: 2000, maxHeldBytes: 1 });
  try {
    await appendLarge(t.store, 60);
    const idle = neverRead(url);
    // Its socket is full (15 MB is more than the kernel buffers take) and it holds a batch.
    await until(() => streams.held() > 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(streams.held()).toBeGreaterThan(0);
    const reader = await openSse(url);
    await new Promise((r) => setTimeout(r, 1000));
    expect(reader.status).toBe(200);
    expect(reader.messages).toHaveLength(0);
    await reader.waitFor((m) => m.length === 60, 20_000);
    expect(streams.open()).toBe(1);
    reader.close();
    idle.destroy();
  } finally {
    await stop(t, server);
  }
}, 120_000);

test('SIGTERM ends open event streams: the server process stops instead of waiting for the clients', async () => {
  const dir = tempDir();
  try {
    const server = await startServerProcess({ DATA_DIR: dir, WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath }, 60_000);
    const created = await fetch(`${server.url}/api/action-triggers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(trigger),
    });
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
