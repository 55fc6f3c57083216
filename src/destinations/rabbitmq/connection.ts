import { connect, type ConfirmChannel, type Options, type SocketOptions } from 'amqplib';
import { closeThenDestroy, openOrDestroy } from '../broker-kit/client-lifetime';
import { PublishFailure } from '../broker-kit/publish-error';
import { confirmChannels } from './confirm-channels';

/**
 * An AMQP connection with its confirm channels, one per publish in flight (`confirm-channels.ts`),
 * so a target the broker refuses closes only its own. `broken` once the client saw it go.
 */
export const openAmqp = async (url: string, signal: AbortSignal) => {
  // The socket's own signal: amqplib gives no other handle on a connection still opening.
  const socket = new AbortController();
  const connection = await openOrDestroy(signal, connect(url, { signal: socket.signal } as SocketOptions), () => socket.abort());
  let lost = false;
  const markLost = () => {
    lost = true;
  };
  connection.on('error', markLost);
  connection.on('close', markLost);
  return {
    channels: confirmChannels(connection),
    broken: () => lost,
    close: () =>
      closeThenDestroy(
        () => connection.close(),
        () => socket.abort(),
      ),
  };
};

/** Publishes one message and resolves once the broker confirmed it. */
export const confirmedPublish = (
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish,
): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    channel.publish(exchange, routingKey, content, options, (err) =>
      err ? reject(err instanceof Error ? err : new PublishFailure('the broker refused the message')) : resolve(),
    );
  });
