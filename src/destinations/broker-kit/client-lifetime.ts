import type { Socket } from 'node:net';
import { PublishFailure } from './publish-error';

/**
 * Waits for a client to open, unless `signal` gives up on it first. Whatever was opened is then
 * destroyed, at once or when it opens late; so is a client whose opening failed, since a client
 * left alone after a failed or abandoned start may keep a socket or reconnect on its own
 * (some clients do). `destroy` may be called more than once.
 */
export const openOrDestroy = <T>(signal: AbortSignal, opening: Promise<T>, destroy: () => unknown): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const quietly = () => {
      try {
        void Promise.resolve(destroy()).catch(() => undefined);
      } catch {
        /* already gone */
      }
    };
    const onAbort = () => {
      quietly();
      reject(new PublishFailure('connecting was given up'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) quietly();
        else resolve(value);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        quietly();
        reject(e);
      },
    );
  });

/** Closes gracefully within `ms`, then destroys what is left (a broker that stopped answering never confirms a close). */
export const closeThenDestroy = async (close: () => Promise<unknown>, destroy: () => void, ms = 1000): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      close(),
      new Promise((r) => {
        timer = setTimeout(r, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    destroy();
  }
};

/**
 * The sockets a client opened, for clients whose library gives no other way to end a
 * connection still opening (kafkajs, grpc-js): once ended, each is destroyed, and so is any
 * socket the client opens after that, so nothing reconnects.
 */
export const socketsOf = () => {
  const open = new Set<Socket>();
  let ended = false;
  return {
    add: <T extends Socket>(socket: T): T => {
      if (ended) socket.destroy();
      else {
        open.add(socket);
        socket.once('close', () => open.delete(socket));
      }
      return socket;
    },
    destroyAll: () => {
      ended = true;
      open.forEach((s) => s.destroy());
      open.clear();
    },
  };
};
