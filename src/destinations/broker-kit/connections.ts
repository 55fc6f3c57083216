import type { BrokerConnection, Confirmation, OutboundMessage, Publisher } from './port';
import { PublishFailure } from './publish-error';

/** The attempt's time-out ran out: the connection may be dead, so it is not used again. */
class NoAnswer extends PublishFailure {}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`${what}: no answer within ${ms / 1000}s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
};

/** Connections kept per worker; past this, the least recently used one is retired (e.g. many Kafka topics). */
const MAX_LINKS = 128;

export interface Connections {
  /** Publishes on the target's shared connection (opened on first use), within `timeoutMs`. */
  publish<S>(publisher: Publisher<S>, settings: S, message: OutboundMessage, timeoutMs: number): Promise<Confirmation>;
  close(): Promise<void>;
}

/** A connection being opened, and once open, the connection itself. */
interface Link {
  readonly key: string;
  readonly opening: Promise<BrokerConnection<unknown>>;
  /** Aborted to give up on a connection still opening: the publisher closes whatever it opened. */
  readonly giveUp: AbortController;
  open?: BrokerConnection<unknown>;
  /** Attempts waiting for it or publishing on it. */
  users: number;
  /** No new attempt uses it; closed once its last attempt ended. */
  retired: boolean;
  closed?: boolean;
}

/**
 * One long-lived connection per broker connection key in a worker, for every publisher type.
 * Every wait, connecting included, is within the attempt's time-out. A connection that failed
 * to open, gave no answer in time or is seen broken is retired: later attempts open a new one,
 * and it is closed (or given up on, if still opening) once the attempts using it ended, never
 * under another attempt's publish. A publish the broker refused (one target's bad settings)
 * fails alone: the connection stays.
 */
export const createConnections = (): Connections => {
  const links = new Map<string, Link>();
  /** Closes an open link once; one still opening is given up on (and closed below if it opens anyway). */
  const closeNow = async (link: Link) => {
    if (!link.open) {
      link.giveUp.abort();
      return;
    }
    if (link.closed) return;
    link.closed = true;
    await withTimeout(link.open.close(), 5000, 'closing').catch(() => undefined);
  };
  const shut = (link: Link) => {
    void closeNow(link);
  };
  const retire = (link: Link) => {
    if (links.get(link.key) === link) links.delete(link.key);
    if (link.retired) return;
    link.retired = true;
    if (link.users === 0) shut(link);
  };
  const release = (link: Link) => {
    link.users -= 1;
    if (link.retired && link.users === 0) shut(link);
  };
  const linkOf = <S>(publisher: Publisher<S>, settings: S): Link => {
    const key = `${publisher.brokerType} ${publisher.connectionKey(settings)}`;
    const existing = links.get(key);
    if (existing && !existing.open?.broken()) {
      links.delete(key); // most recently used last
      links.set(key, existing);
      return existing;
    }
    if (existing) retire(existing);
    const giveUp = new AbortController();
    const link: Link = {
      key,
      opening: publisher.connect(settings, giveUp.signal) as Promise<BrokerConnection<unknown>>,
      giveUp,
      users: 0,
      retired: false,
    };
    link.opening.then(
      (c) => {
        link.open = c;
        if (link.retired && link.users === 0) shut(link); // retired while it opened
      },
      () => retire(link),
    );
    links.set(key, link);
    if (links.size > MAX_LINKS) retire(links.values().next().value!);
    return link;
  };
  return {
    publish: async (publisher, settings, message, timeoutMs) => {
      const link = linkOf(publisher, settings);
      link.users += 1;
      try {
        const connection = (await withTimeout(link.opening, timeoutMs, 'connecting to the broker').catch((e: unknown) => {
          retire(link);
          throw e;
        })) as BrokerConnection<typeof settings>;
        try {
          return await withTimeout(connection.publish(settings, message), timeoutMs, 'waiting for the broker to confirm');
        } catch (e) {
          if (e instanceof NoAnswer || connection.broken()) retire(link);
          throw e;
        }
      } finally {
        release(link);
      }
    },
    close: async () => {
      const all = [...links.values()];
      links.clear();
      await Promise.all(
        all.map((l) => {
          l.retired = true;
          return closeNow(l);
        }),
      );
    },
  };
};
