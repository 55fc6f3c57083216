import { createServer, Server, Socket } from 'node:net';
import { createConnections } from '../../../src/destinations/broker-kit/connections';
import { publisherFor } from '../../../src/destinations/brokers/registry';
import { BROKER_TARGETS, pointedAt } from '../../support/brokers/targets';

/**
 * A broker that accepts TCP and never answers: every attempt times out, and everything opened
 * for it is closed (a connection still opening when its attempt gave up included), and nothing
 * reconnects on its own later. Counted on the server's side.
 */
interface BlackHole {
  port: number;
  open: Set<Socket>;
  accepted(): number;
  close(): void;
}
const blackHole = async (): Promise<BlackHole> => {
  const open = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted += 1;
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
    s.resume(); // reads and drops what the client says, so that its close is seen
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    open,
    accepted: () => accepted,
    close: () => {
      open.forEach((s) => s.destroy());
      server.close();
    },
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const untilTrue = async (ok: () => boolean, ms: number) => {
  for (const deadline = Date.now() + ms; !ok() && Date.now() < deadline;) await sleep(50);
};

test.each(Object.keys(BROKER_TARGETS))(
  '%s: attempts that time out against a silent broker leave no socket open, and nothing reconnects',
  async (type) => {
    const publisher = publisherFor(type)!;
    const target = await BROKER_TARGETS[type]!();
    await target.close(); // only its config is used
    const hole = await blackHole();
    const connections = createConnections();
    try {
      const s = publisher.settings({ ...target.broker.conn_details, ...pointedAt(type, hole.port) }, target.broker.params);
      if (!s.ok) throw new Error(JSON.stringify(s.errors));
      // Three dispatches, three attempts each, as a worker would run them.
      for (let attempt = 1; attempt <= 3; attempt++) {
        const outcomes = await Promise.all(
          [1, 2, 3].map((d) =>
            connections.publish(publisher, s.value, { body: '{}', contentType: 'application/json', deliveryId: `d${d}` }, 500).then(
              () => 'confirmed',
              (e: Error) => e.message,
            ),
          ),
        );
        expect(outcomes).toEqual([1, 2, 3].map(() => expect.stringMatching(/no answer within 0.5s/)));
      }
      expect(hole.accepted()).toBeGreaterThan(0);
      await untilTrue(() => hole.open.size === 0, 3000);
      expect(hole.open.size).toBe(0);
      const accepted = hole.accepted();
      await sleep(3000); // an abandoned client would reconnect by now
      expect([hole.open.size, hole.accepted()]).toEqual([0, accepted]);
    } finally {
      await connections.close();
      hole.close();
    }
  },
  60_000,
);
