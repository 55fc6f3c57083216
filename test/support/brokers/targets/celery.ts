import { connect as amqpConnect } from 'amqplib';
import { testServers } from '../../servers';
import { BrokerTarget, collect, Consumed, TargetServers, TestedBrokerType, unique } from '../target';

/**
 * What a task received, as the contract compares messages: keyword arguments as the JSON object
 * they came from, one argument as its text (a string) or JSON; the delivery id is the task's id.
 */
export const asConsumed = (content: Buffer, headers: Record<string, unknown>): Consumed => {
  const [args, kwargs] = JSON.parse(content.toString('utf8')) as [unknown[], Record<string, unknown>];
  const text = args.length === 1 && typeof args[0] === 'string';
  return {
    body: text ? (args[0] as string) : JSON.stringify(args.length === 0 ? kwargs : args[0]),
    deliveryId: headers.id as string,
    contentType: text ? 'text/plain; charset=utf-8' : 'application/json',
    traceparent: headers.traceparent as string | undefined,
  };
};

/** Over RabbitMQ (the Redis transport runs with a real Celery worker: test/integration/brokers/celery-worker.test.ts). */
const open = async (servers?: TargetServers): Promise<BrokerTarget> => {
  const url = servers?.rabbitUrl ?? testServers().rabbit.url;
  const queue = unique('tasks');
  const conn = await amqpConnect(url);
  const ch = await conn.createChannel();
  await ch.assertQueue(queue, { durable: true });
  const got: Consumed[] = [];
  return {
    type: 'celery',
    broker: { broker_type: 'celery', conn_details: { url }, params: { task: 'tests.record', queue } },
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () => {
          const m = await ch.get(queue, { noAck: true });
          return m ? [asConsumed(m.content, (m.properties.headers ?? {}) as Record<string, unknown>)] : [];
        },
        count,
        timeoutMs,
        got,
      ),
    close: async () => {
      await conn.close();
    },
  };
};

const celery: TestedBrokerType = {
  open,
  address: { key: 'url', at: (host, port) => `amqp://guest:guest@${host}:${port}` },
  addressKeys: ['url'],
  privateSpelling: (port) => `amqp://guest:guest@2130706433:${port}`,
  refused: [
    {
      what: 'an exchange that does not exist',
      broker: (b) => ({ ...b, params: { ...b.params, exchange: unique('no-such-exchange'), routing_key: 'x' } }),
    },
  ],
};
export default celery;
