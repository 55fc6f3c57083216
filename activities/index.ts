import { Dispatcher } from 'undici';
import { Config } from '../src/config';
import { EventStore } from '../src/event-store/port';
import { Logger } from '../src/logger';
import { ReadModel } from '../projections/read-model';
import { createPublishToBroker } from './broker';
import { DynamicValueSource } from './dynamic-values';
import { createPlanActions } from './plan';
import { RabbitPublisher } from './rabbitmq';
import { createDeliverWebhook } from './webhook';
import { createDefinitionAt } from './definition-at';
import type { DeliveryReceipt } from '../src/dispatch/types';
import { boundWarnings } from '../src/dispatch/bounds';

export interface ActivityDeps {
  readonly config: Config;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly dispatcher: Dispatcher;
  readonly rabbit: RabbitPublisher;
  readonly dynamicValues: DynamicValueSource;
  readonly log: Logger;
}

/** An activity's result stays small whatever the trigger renders (see src/dispatch/bounds.ts). */
const bounded = <A>(deliver: (args: A) => Promise<DeliveryReceipt>) => async (args: A): Promise<DeliveryReceipt> => {
  const receipt = await deliver(args);
  return { ...receipt, warnings: boundWarnings(receipt.warnings) };
};

/** The worker's activities, on real clients; tests pass real clients pointed at test servers. */
export const createActivities = (deps: ActivityDeps) => {
  const definitionAt = createDefinitionAt(deps.store);
  return {
    planActions: createPlanActions({ readModel: deps.readModel, defaultTimeoutSecs: deps.config.limits.defaultTimeoutSecs }),
    deliverWebhook: bounded(createDeliverWebhook({
      definitionAt, dynamicValues: deps.dynamicValues, dispatcher: deps.dispatcher, log: deps.log,
      signingSecret: deps.config.file.signing_secret,
      userAgent: 'action-triggers/0.1 (+webhook)',
    })),
    publishToBroker: bounded(createPublishToBroker({
      definitionAt, dynamicValues: deps.dynamicValues, brokers: deps.config.file.brokers ?? {}, rabbit: deps.rabbit, log: deps.log,
    })),
  };
};

export type Activities = ReturnType<typeof createActivities>;
