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

/** A connection being opened, and once open, the connection itself. */
interface Link { opening: Promise<BrokerConnection<unknown>>; open?: BrokerConnection<unknown> }

/**
 * One long-lived connection per broker connection key in a worker, for every publisher type.
 * A connection that fails, times out or is seen broken is dropped (and closed); the next
 * attempt reconnects. Every wait, connecting included, is within the attempt's time-out.
 */
export const createConnections = (): Connections => {
  const links = new Map<string, Link>();
  const closeLink = (link: Link) => { void link.opening.then((c) => c.close()).catch(() => undefined); };
  const drop = (key: string, link: Link) => {
    if (links.get(key) !== link) return;
    links.delete(key);
    closeLink(link);
  };
  const linkOf = <S>(publisher: Publisher<S>, settings: S) => {
    const key = `${publisher.brokerType} ${publisher.connectionKey(settings)}`;
    const existing = links.get(key);
    if (existing && !existing.open?.broken()) return { key, link: existing };
    if (existing) drop(key, existing);
    const link: Link = { opening: publisher.connect(settings) as Promise<BrokerConnection<unknown>> };
    link.opening.then((c) => { link.open = c; }, () => { if (links.get(key) === link) links.delete(key); });
    links.set(key, link);
    return { key, link };
  };
  return {
    publish: async (publisher, settings, message, timeoutMs) => {
      const { key, link } = linkOf(publisher, settings);
      try {
        const connection = await withTimeout(link.opening, timeoutMs, 'connecting to the broker') as BrokerConnection<typeof settings>;
        return await withTimeout(connection.publish(settings, message), timeoutMs, 'waiting for the broker to confirm');
      } catch (e) {
        drop(key, link);
        throw e;
      }
    },
    close: async () => {
      const all = [...links.values()];
      links.clear();
      // Open ones are closed and awaited; one still connecting is closed whenever it opens.
      all.filter((l) => !l.open).forEach(closeLink);
      await Promise.all(all.flatMap((l) => (l.open ? [withTimeout(l.open.close(), 5000, 'closing').catch(() => undefined)] : [])));
    },
  };
};
