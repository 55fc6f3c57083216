import type { EventStore } from '../event-store/port';
import type { Logger } from '../kernel/logger';
import type { TriggerMatcher } from '../model/signals/matching';
import { openReadModel, ReadModel } from './read-model';
import { ProjectionRunner, startProjection } from './runner';

/**
 * The read model of a worker-only process: it plans only dispatches started before the API
 * planned them, so it is opened and brought up to date on the first such dispatch, not at start.
 */
export const readModelOnFirstUse = (store: EventStore, file: string, log: Logger) => {
  let opened: Promise<{ readModel: ReadModel; projection: ProjectionRunner }> | undefined;
  const open = async () => {
    log.info('opening the read model: a dispatch started without a plan is planned here', { file });
    const readModel = openReadModel(file, { log });
    const projection = await startProjection(store, readModel, log);
    await projection.ready;
    return { readModel, projection };
  };
  return {
    matcher: async (): Promise<TriggerMatcher> => {
      opened ??= open().catch((e) => {
        opened = undefined; // the next planless dispatch tries again
        throw e;
      });
      return (await opened).readModel;
    },
    close: async () => {
      const o = await opened?.catch(() => undefined);
      await o?.projection.stop();
      o?.readModel.close();
    },
  };
};
