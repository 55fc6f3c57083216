import { createConnections } from '../../../src/destinations/broker-kit/connections';
import { publisherFor } from '../../../src/destinations/brokers/registry';
import { BROKER_TARGETS, BrokerTarget, TESTED_TYPES } from '../../support/brokers/targets';

/**
 * One target's bad settings fail only its own publishes: a bad target's publishes interleaved
 * with a good target's, on the same broker connection (same connection key), through the real
 * publishers and shared connections. Every one of the good target's messages is confirmed and
 * arrives; the bad target's are refused, and its error never shows in the good target's results.
 */
type Broker = BrokerTarget['broker'];

/** The same broker, pointed at a destination the broker refuses: each type's own ways. */
const BAD = TESTED_TYPES.flatMap((t) => (t.refused ?? []).map(({ what, broker }) => [t.type, what, broker] as const));

test.each(BAD)(
  '%s: %s fails only its own publishes, not those of a good target on the same connection',
  async (type, _what, badOf) => {
    const publisher = publisherFor(type)!;
    const target = await BROKER_TARGETS[type]!();
    const connections = createConnections();
    const settingsOf = (b: Broker) => {
      const s = publisher.settings(b.conn_details, b.params);
      if (!s.ok) throw new Error(JSON.stringify(s.errors));
      return s.value;
    };
    try {
      const [good, bad] = [settingsOf(target.broker), settingsOf(await badOf(target.broker))];
      // One shared connection, except Kafka's producer per topic (kafkajs's metadata requests are all or nothing).
      if (type === 'kafka') expect(publisher.connectionKey(bad)).not.toBe(publisher.connectionKey(good));
      else expect(publisher.connectionKey(bad)).toBe(publisher.connectionKey(good));
      // The good target's messages are larger, so that some are still on their way when a bad one is refused.
      const send = (settings: unknown, deliveryId: string, pad = 0) =>
        connections
          .publish(
            publisher,
            settings,
            { body: JSON.stringify({ id: deliveryId, pad: 'x'.repeat(pad) }), contentType: 'application/json', deliveryId },
            15_000,
          )
          .then(
            () => 'confirmed',
            (e: Error) => `failed: ${e.message}`,
          );
      const ids = Array.from({ length: 30 }, (_, i) => i);
      const results = await Promise.all(ids.flatMap((i) => [send(bad, `bad-${i}`), send(good, `good-${i}`, 100_000)]));
      const [badResults, goodResults] = [results.filter((_, i) => i % 2 === 0), results.filter((_, i) => i % 2 === 1)];
      expect(badResults.filter((r) => r === 'confirmed')).toEqual([]); // the bad target really is refused
      expect(goodResults).toEqual(ids.map(() => 'confirmed'));
      const arrived = (await target.read(30, 30_000)).map((m) => m.deliveryId);
      expect(new Set(arrived)).toEqual(new Set(ids.map((i) => `good-${i}`)));
    } finally {
      await connections.close();
      await target.close();
    }
  },
  90_000,
);
