import type { Socket } from 'node:net';
import type { PubSub } from '@google-cloud/pubsub';

type ChannelCredentials = NonNullable<PubSub['options']['sslCreds']>;

/** The part of grpc-js's channel credentials (declared in its typings) that sees each connection's socket. */
interface SecureConnector {
  connect(socket: Socket): Promise<unknown>;
  waitForReady(): Promise<void>;
  getCallCredentials(): unknown;
  destroy(): void;
}
interface Credentials {
  _equals(other: unknown): boolean;
  _createSecureConnector(...args: unknown[]): SecureConnector;
}

/**
 * The same credentials, handing every socket gRPC connects with to `track`. grpc-js waits for a
 * server's first HTTP/2 frame with no time limit, and keeps that connection after the channel is
 * closed: against a server that never answers, only destroying the socket ends it. Equal to no
 * other credentials, so gRPC's shared subchannel pool never hands this client's connections to another.
 */
export const trackingSockets = (
  inner: ChannelCredentials | undefined,
  track: (socket: Socket) => Socket,
): ChannelCredentials | undefined => {
  if (!inner) return inner;
  const base = inner as unknown as Credentials;
  const tracked = Object.create(inner) as Credentials;
  tracked._equals = (other) => other === tracked;
  tracked._createSecureConnector = (...args) => {
    const connector = base._createSecureConnector(...args);
    return {
      connect: (socket) => connector.connect(track(socket)),
      waitForReady: () => connector.waitForReady(),
      getCallCredentials: () => connector.getCallCredentials(),
      destroy: () => connector.destroy(),
    };
  };
  return tracked as unknown as ChannelCredentials;
};
