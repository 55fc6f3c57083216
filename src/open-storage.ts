import { join } from 'node:path';
import type { Config } from './config';
import { openEventStore } from './event-store/open';
import type { EventStore } from './event-store/port';
import type { Logger } from './kernel/logger';
import type { TriggerMatcher } from './model/signals/matching';
import type { Metrics } from './observability/metrics';
import { withAppendTiming } from './observability/timed-store';
import { readModelOnFirstUse } from './projections/on-first-use';
import { openReadModel, ReadModel, ReadModelOptions } from './projections/read-model';
import { ProjectionRunner, startProjection } from './projections/runner';

export interface Storage {
  readonly store: EventStore;
  /** Open (and its projection caught up) unless the read model is opened on first use. */
  readonly read?: { readonly readModel: ReadModel; readonly projection: ProjectionRunner };
  /** What plans a dispatch started without a plan: the read model, opened now or when first asked. */
  readonly triggers: () => Promise<TriggerMatcher>;
  close(): Promise<void>;
}

export interface StorageOptions {
  readonly log: Logger;
  readonly metrics?: Metrics;
  /** `now` for a process that answers the API; a worker-only process opens it when it must. */
  readonly readModel: 'now' | 'on-first-use';
  readonly readModelOptions?: ReadModelOptions;
}

/**
 * The event store and the read model, opened the one way every process opens them (main.ts and
 * the test harnesses): the configured store, its appends timed; the read model in DATA_DIR kept
 * current by its projection, which has caught up when this resolves.
 */
export const openStorage = async (config: Config, o: StorageOptions): Promise<Storage> => {
  const opened = await openEventStore(config);
  const store = o.metrics ? withAppendTiming(opened, o.metrics) : opened;
  const file = join(config.dataDir, 'read-model.sqlite');
  if (o.readModel === 'on-first-use') {
    const lazy = readModelOnFirstUse(store, file, o.log);
    return {
      store,
      triggers: lazy.matcher,
      close: async () => {
        await lazy.close();
        await store.close();
      },
    };
  }
  const readModel = openReadModel(file, { log: o.log, ...o.readModelOptions });
  const projection = await startProjection(store, readModel, o.log);
  await projection.ready;
  o.metrics?.projectionLag(projection.lag);
  return {
    store,
    read: { readModel, projection },
    triggers: () => Promise.resolve(readModel),
    close: async () => {
      await projection.stop();
      readModel.close();
      await store.close();
    },
  };
};
