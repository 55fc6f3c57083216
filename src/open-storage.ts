import { join } from 'node:path';
import type { Config } from './config';
import { openEventStore } from './event-store/open';
import type { EventStore } from './event-store/port';
import type { Logger } from './kernel/logger';
import type { Metrics } from './observability/metrics';
import { withAppendTiming } from './observability/timed-store';
import { openReadModel, ReadModel, ReadModelOptions } from './projections/read-model';
import { ProjectionRunner, startProjection } from './projections/runner';

export interface Storage {
  readonly store: EventStore;
  /** Open (and its projection caught up) in a process that answers the API; a worker-only process has none. */
  readonly read?: { readonly readModel: ReadModel; readonly projection: ProjectionRunner };
  close(): Promise<void>;
}

export interface StorageOptions {
  readonly log: Logger;
  readonly metrics?: Metrics;
  /** Whether to open the read model: a process that answers the API does; a worker-only one needs none. */
  readonly readModel: boolean;
  readonly readModelOptions?: ReadModelOptions;
}

/**
 * The event store and the read model, opened the one way every process opens them (main.ts and
 * the test harnesses): the configured store, its appends timed; when asked, the read model in
 * DATA_DIR kept current by its projection, which has caught up when this resolves.
 */
export const openStorage = async (config: Config, o: StorageOptions): Promise<Storage> => {
  const opened = await openEventStore(config);
  const store = o.metrics ? withAppendTiming(opened, o.metrics) : opened;
  const file = join(config.dataDir, 'read-model.sqlite');
  if (!o.readModel) return { store, close: () => store.close() };
  const readModel = openReadModel(file, { log: o.log, ...o.readModelOptions });
  const projection = await startProjection(store, readModel, o.log);
  await projection.ready;
  o.metrics?.projectionLag(projection.lag);
  return {
    store,
    read: { readModel, projection },
    close: async () => {
      await projection.stop();
      readModel.close();
      await store.close();
    },
  };
};
