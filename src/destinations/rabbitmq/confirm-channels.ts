import type { ChannelModel, ConfirmChannel } from 'amqplib';

/** Idle channels kept for reuse; more are opened while more publishes are in flight, and closed after. */
const MAX_IDLE = 16;

interface Pooled {
  readonly channel: ConfirmChannel;
  failure?: Error;
  closed: boolean;
}

/**
 * Confirm channels, one per publish in flight. A channel error (an exchange that does not exist,
 * a reserved queue name, a message the broker refuses) closes the channel it happened on and
 * fails every message not yet confirmed on it: with one publish per channel, only the publish
 * that caused it fails, and the others' go on. Its error is the server's reason.
 */
export const confirmChannels = (connection: ChannelModel) => {
  const idle: Pooled[] = [];
  const openOne = async (): Promise<Pooled> => {
    const pooled: Pooled = { channel: await connection.createConfirmChannel(), closed: false };
    pooled.channel.on('error', (e: Error) => {
      pooled.failure = e;
    });
    pooled.channel.on('close', () => {
      pooled.closed = true;
      const at = idle.indexOf(pooled);
      if (at >= 0) idle.splice(at, 1);
    });
    return pooled;
  };
  const giveBack = (pooled: Pooled) => {
    if (pooled.closed) return;
    if (idle.length < MAX_IDLE) idle.push(pooled);
    else void pooled.channel.close().catch(() => undefined);
  };
  return {
    /** Runs `work` on a channel of its own; the channel is reused once `work` ended, unless it closed. */
    use: async <T>(work: (channel: ConfirmChannel) => Promise<T>): Promise<T> => {
      const pooled = idle.pop() ?? (await openOne());
      try {
        return await work(pooled.channel);
      } catch (e) {
        throw pooled.failure ?? e;
      } finally {
        giveBack(pooled);
      }
    },
  };
};
