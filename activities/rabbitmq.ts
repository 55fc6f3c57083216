import { connect, ChannelModel, ConfirmChannel } from 'amqplib';

export interface PublishRequest {
  url: string;
  /** '' is the default exchange, which routes by queue name. */
  exchange: string;
  routingKey: string;
  /** When set with the default exchange, the queue is declared durable before the first publish. */
  queue: string | undefined;
  body: string;
  contentType: string;
  messageId: string;
  timeoutMs: number;
}

export interface RabbitPublisher {
  publish(req: PublishRequest): Promise<void>;
  close(): Promise<void>;
}

interface Link { connection: ChannelModel; channel: ConfirmChannel; declared: Set<string> }

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000}s`)), ms); });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
};

/**
 * Publishes persistent messages on confirm channels, one connection per broker URL, reused
 * across activities. A broken or timed-out link is dropped and the next attempt reconnects.
 */
export const createRabbitPublisher = (): RabbitPublisher => {
  const links = new Map<string, Promise<Link>>();
  const drop = (url: string, link?: Promise<Link>) => {
    const current = links.get(url);
    if (current && (!link || current === link)) {
      links.delete(url);
      void current.then((l) => l.connection.close()).catch(() => undefined);
    }
  };
  const open = (url: string): Promise<Link> => {
    const existing = links.get(url);
    if (existing) return existing;
    const link = (async () => {
      const connection = await connect(url);
      const channel = await connection.createConfirmChannel();
      const lost = () => { if (links.get(url) === link) links.delete(url); };
      connection.on('error', lost);
      connection.on('close', lost);
      channel.on('error', lost);
      channel.on('close', lost);
      return { connection, channel, declared: new Set<string>() };
    })();
    links.set(url, link);
    link.catch(() => { if (links.get(url) === link) links.delete(url); });
    return link;
  };
  return {
    publish: async (req) => {
      const link = open(req.url);
      try {
        const { channel, declared } = await withTimeout(link, req.timeoutMs, 'connecting to the broker');
        if (req.queue && req.exchange === '' && !declared.has(req.queue)) {
          await withTimeout(channel.assertQueue(req.queue, { durable: true }), req.timeoutMs, 'declaring the queue');
          declared.add(req.queue);
        }
        await withTimeout(new Promise<void>((resolve, reject) => {
          channel.publish(req.exchange, req.routingKey, Buffer.from(req.body), {
            persistent: true, messageId: req.messageId, contentType: req.contentType, timestamp: Math.floor(Date.now() / 1000),
          }, (err) => (err ? reject(err instanceof Error ? err : new Error('the broker refused the message')) : resolve()));
        }), req.timeoutMs, 'waiting for the broker to confirm');
      } catch (e) {
        drop(req.url, link);
        throw e;
      }
    },
    close: async () => {
      const all = [...links.values()];
      links.clear();
      await Promise.all(all.map((l) => l.then((x) => x.connection.close()).catch(() => undefined)));
    },
  };
};
