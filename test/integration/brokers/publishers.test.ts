import { createServer, Server, Socket } from 'node:net';
import { createConnections } from '../../../src/destinations/broker-kit/connections';
import { publisherFor } from '../../../src/destinations/brokers/registry';
import { BROKER_TARGETS, BrokerTarget, pointedAt } from '../../support/brokers/targets';
import { freePort } from '../../support/free-port';

/**
 * The publisher contract: every broker type, on its real server, through the same port the
 * broker activity uses (shared connections with the attempt's time-out).
 */
const connections = createConnections();
afterAll(() => connections.close());

/** A loopback server that accepts connections and never says a word. */
let silent: Server;
const held = new Set<Socket>();
let silentPort: number;
beforeAll(async () => {
  silent = createServer((s) => {
    held.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(() => {
  held.forEach((s) => s.destroy());
  silent.close();
});

describe.each(Object.keys(BROKER_TARGETS))('%s publisher', (type) => {
  const publisher = publisherFor(type)!;
  let target: BrokerTarget;
  beforeAll(async () => {
    target = await BROKER_TARGETS[type]!();
  }, 60_000);
  afterAll(() => target?.close());

  const settingsOf = (conn: Record<string, string> = {}) => {
    const s = publisher.settings({ ...target.broker.conn_details, ...conn }, target.broker.params);
    if (!s.ok) throw new Error(JSON.stringify(s.errors));
    return s.value;
  };

  test('JSON and text bodies arrive byte for byte, with the delivery id and the content type', async () => {
    const json = '{"order":42,"note":"ünïcødé ✓ \\"quoted\\"","nested":{"a":[1,2.5,null,true]}}';
    const text = 'plain text, line 1\nline 2 — ✓ \u0000 tail';
    await connections.publish(
      publisher,
      settingsOf(),
      { body: json, contentType: 'application/json', deliveryId: `${type}-1.trigger.q0` },
      10_000,
    );
    await connections.publish(
      publisher,
      settingsOf(),
      { body: text, contentType: 'text/plain; charset=utf-8', deliveryId: `${type}-2.trigger.q0` },
      10_000,
    );
    const got = (await target.read(2)).sort((a, b) => String(a.deliveryId).localeCompare(String(b.deliveryId)));
    expect(got).toEqual([
      { body: json, deliveryId: `${type}-1.trigger.q0`, contentType: 'application/json' },
      { body: text, deliveryId: `${type}-2.trigger.q0`, contentType: 'text/plain; charset=utf-8' },
    ]);
  }, 60_000);

  test('timeout_secs cuts an attempt against a broker that never answers', async () => {
    const started = Date.now();
    await expect(
      connections.publish(
        publisher,
        settingsOf(pointedAt(type, silentPort)),
        { body: '{}', contentType: 'application/json', deliveryId: 'x' },
        1000,
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/no answer within 1s|timed? ?out/i) });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('bad connection details fail with a clear error that names no secret', async () => {
    const closed = await freePort();
    const error = await connections
      .publish(publisher, settingsOf(pointedAt(type, closed)), { body: '{}', contentType: 'application/json', deliveryId: 'y' }, 3000)
      .then(
        () => undefined,
        (e: { message: string }) => e,
      );
    expect(error).toBeDefined(); // an Error, possibly of another realm (a client's own)
    expect(String(error!.message).length).toBeGreaterThan(5);
    expect(String(error!.message)).not.toContain('test-secret');
  });
});
