import { Client, ClientInterceptors, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { Config, retrySettingsOf } from './config';
import { createDispatchClient, DispatchClient } from './temporal/dispatch-client';
import { ensureSearchAttributes } from './temporal/search-attributes';

/** gRPC waits up to 120 s between reconnects by default: a backlog would wait that long after Temporal is back. */
const RECONNECT_QUICKLY = { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 2000 };

export interface TemporalSide {
  /** The worker's connection; absent for a process without a worker. */
  readonly native: NativeConnection | undefined;
  /** The client's connection: the native one, or a lazy one. */
  readonly connection: NativeConnection | Connection;
  readonly client: Client;
  readonly dispatch: DispatchClient;
  /** What the relay starts a dispatch with: registers the search attributes first, once, if that was not possible at start. */
  readonly startDispatch: DispatchClient['start'];
  close(): Promise<void>;
}

export interface TemporalOptions {
  /** The server (TEMPORAL_ADDRESS or the dev server this process started). */
  readonly address: string;
  /** A worker runs in this process: connect now, and start workflows eagerly on it. */
  readonly withWorker: boolean;
  readonly clientInterceptors?: ClientInterceptors;
  /** How often a dispatch waiting for its turn checks on the one before it (tests shorten it). */
  readonly turnCheckSecs?: number;
}

/**
 * Temporal, opened the one way every process opens it (main.ts and the test harnesses). With a
 * worker here: one native connection for the client and the worker, so a signal's workflow starts
 * eagerly on this worker, saving a round trip through the server. Without one, the client
 * connects lazily: the API starts, and accepts signals, while Temporal is away.
 */
export const openTemporal = async (config: Config, o: TemporalOptions): Promise<TemporalSide> => {
  const namespace = config.temporal.namespace;
  const native = o.withWorker ? await NativeConnection.connect({ address: o.address }) : undefined;
  if (native) await ensureSearchAttributes(native, namespace);
  const connection = native ?? Connection.lazy({ address: o.address, channelArgs: RECONNECT_QUICKLY });
  const client = new Client({ connection, namespace, ...(o.clientInterceptors ? { interceptors: o.clientInterceptors } : {}) });
  const dispatch = createDispatchClient(client, config.temporal.taskQueue, retrySettingsOf(config), {
    eagerStart: o.withWorker,
    ...(o.turnCheckSecs ? { turnCheckSecs: o.turnCheckSecs } : {}),
  });
  let searchAttributesReady = native !== undefined;
  const startDispatch: DispatchClient['start'] = async (...args) => {
    if (!searchAttributesReady) searchAttributesReady = await ensureSearchAttributes(connection, namespace).then(() => true);
    return dispatch.start(...args);
  };
  return { native, connection, client, dispatch, startDispatch, close: () => connection.close() };
};
