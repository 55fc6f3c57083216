import type { ListeningClient, PoolLike } from '../outbox/db.ts';
import { OUTBOX_CHANNEL } from '../outbox/table.ts';
import type { RelayEvent } from './options.ts';

/**
 * Holds one connection of the pool listening on the outbox's channel and calls `wake` for each
 * commit that wrote rows. A lost connection is opened again (after 1 s, doubling to 30 s while
 * that fails), and `wake` is called then too: what was committed meanwhile is found by the pass
 * it starts. Meanwhile the relay polls.
 */
export const listenForCommits = (pool: PoolLike, wake: () => void, log: (e: RelayEvent) => void, firstRetryMs = 1_000) => {
  let client: ListeningClient | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = firstRetryMs;
  const retry = () => {
    timer = setTimeout(open, retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  };

  const lost = (error: Error | undefined) => {
    const gone = client;
    client = undefined;
    if (gone) gone.release(error ?? true);
    if (closed) return;
    log({ level: 'warn', message: 'the LISTEN connection was lost; polling until it is back', error: error?.message });
    retry();
  };

  const open = async () => {
    if (closed) return;
    let c: ListeningClient | undefined;
    try {
      c = await pool.connect();
      const mine = c;
      mine.on('notification', (m) => m.channel === OUTBOX_CHANNEL && wake());
      mine.on('error', (e) => client === mine && lost(e));
      mine.on('end', () => client === mine && lost(undefined));
      await mine.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (closed) return mine.release(true);
      client = mine;
      retryMs = firstRetryMs;
      wake();
    } catch (e) {
      c?.release(true);
      if (closed) return;
      log({ level: 'warn', message: 'could not LISTEN for commits; polling meanwhile', error: e instanceof Error ? e.message : String(e) });
      retry();
    }
  };

  void open();
  return {
    close: () => {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      // Released broken: a connection that listened goes back to the server, not to the pool.
      c?.release(true);
    },
  };
};
