import type { BrokerConnection, Confirmation, OutboundMessage, Publisher } from './port';

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000}s`)), ms); });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
};

export interface Connections {
  /** Publishes on the target's shared connection (opened on first use), within `timeoutMs`. */
  publish<S>(publisher: Publisher<S>, settings: S, message: OutboundMessage, timeoutMs: number): Promise<Confirmation>;
  close(): Promise<void>;
}

/**
 * One long-lived connection per broker connection key in a worker, for every publisher type.
 * A connection that fails or times out is dropped (and closed); the next attempt reconnects.
 */
export const createConnections = (): Connections => {
  const open = new Map<string, Promise<BrokerConnection<unknown>>>();
  const drop = (key: string, link: Promise<BrokerConnection<unknown>>) => {
    if (open.get(key) !== link) return;
    open.delete(key);
    void link.then((c) => c.close()).catch(() => undefined);
  };
  const connectionOf = <S>(publisher: Publisher<S>, settings: S) => {
    const key = `${publisher.brokerType} ${publisher.connectionKey(settings)}`;
    let link = open.get(key) as Promise<BrokerConnection<S>> | undefined;
    if (!link) {
      link = publisher.connect(settings);
      const stored = link as Promise<BrokerConnection<unknown>>;
      open.set(key, stored);
      stored.catch(() => { if (open.get(key) === stored) open.delete(key); });
    }
    return { key, link };
  };
  return {
    publish: async (publisher, settings, message, timeoutMs) => {
      let { key, link } = connectionOf(publisher, settings);
      if (await link.then((c) => c.broken(), () => false)) {
        drop(key, link as Promise<BrokerConnection<unknown>>);
        ({ key, link } = connectionOf(publisher, settings));
      }
      try {
        const connection = await withTimeout(link, timeoutMs, 'connecting to the broker');
        return await withTimeout(connection.publish(settings, message), timeoutMs, 'waiting for the broker to confirm');
      } catch (e) {
        drop(key, link as Promise<BrokerConnection<unknown>>);
        throw e;
      }
    },
    close: async () => {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map((l) => l.then((c) => c.close()).catch(() => undefined)));
    },
  };
};
