import { breakerSettingsOf, Config, policyOf, signingSecretsOf } from '../config';
import { matchesFromStart } from '../destinations/webhook/url-rules';
import { EventStore } from '../event-store/port';
import { Logger } from '../kernel/logger';
import { withLogFields } from '../kernel/log-context';
import type { DeliveryReceipt } from '../dispatch/types';
import { boundWarnings } from '../dispatch/bounds';
import { PipelineDeps, runAttempt } from '../delivery/attempt';
import type { ActionArgs, DispatchActivities } from '../dispatch/activities';
import type { Channel } from '../destinations/port/channel';
import { createDefinitionAt } from '../model/triggers/definition-at';
import { createDeliveredLedger } from '../delivery/delivered-ledger';
import { createBreaker } from '../model/breaker/record-outcome';
import { DynamicValueSource } from '../delivery/dynamic-values';
import { turnActivities } from '../ordering/turn-activities';
import type { TurnArgs } from '../dispatch/ordering';
import { Channels, firstAttempts } from '../delivery/first-attempts';
import { createSlots } from '../kernel/slots';
import { FIRST_ATTEMPT_CONCURRENCY } from '../kernel/limits';
import { Connections } from '../destinations/broker-kit/connections';
import { DESTINATIONS } from '../destinations/registry';
import { WebhookTransport } from '../destinations/webhook/transport';
import { WEBHOOK_USER_AGENT } from '../destinations/webhook/channel';
import type { Metrics } from '../observability/metrics';

export interface ActivityDeps {
  readonly config: Config;
  readonly store: EventStore;
  readonly webhooks: WebhookTransport;
  readonly brokerConnections: Connections;
  readonly dynamicValues: DynamicValueSource;
  readonly log: Logger;
  readonly metrics?: Metrics;
}

type EndTurn = (args: TurnArgs) => Promise<boolean>;

/**
 * One activity per channel: the shared attempt pipeline, with a result that stays small whatever
 * the trigger renders; a delivery that `endsTurn` ends its dispatch's turn in its instance order.
 */
const activityOf =
  <T>(deps: PipelineDeps, channel: Channel<T>, endTurn: EndTurn) =>
  (args: ActionArgs): Promise<DeliveryReceipt> =>
    // Every line of the attempt (the pipeline's, the ledger's, the breaker's) names the signal and its request.
    withLogFields({ signal_id: args.signal.id, ...(args.requestId ? { request_id: args.requestId } : {}) }, async () => {
      const receipt = await runAttempt(deps, channel, args);
      const turnEnded = args.endsTurn !== undefined && (await endTurn(args.endsTurn));
      return { ...receipt, warnings: boundWarnings(receipt.warnings), ...(turnEnded ? { turnEnded } : {}) };
    });

/** webhook_url_patterns as a check of one URL; none configured: every URL. */
const urlAllowedBy = (patterns: readonly RegExp[]) =>
  patterns.length === 0 ? undefined : (url: string) => patterns.some((p) => matchesFromStart(p, url));

/** The worker's activities, on real clients; tests pass real clients pointed at test servers. */
export const createActivities = (deps: ActivityDeps): DispatchActivities => {
  const definitionAt = createDefinitionAt(deps.store);
  const breaker = createBreaker({ store: deps.store, definitionAt, settings: breakerSettingsOf(deps.config), log: deps.log });
  const pipeline: PipelineDeps = {
    definitionAt,
    dynamicValues: deps.dynamicValues,
    ledger: createDeliveredLedger(deps.store, deps.log),
    log: deps.log,
    breaker,
    metrics: deps.metrics && {
      metrics: deps.metrics,
      brokerTypes: new Map(Object.entries(deps.config.file.brokers ?? {}).map(([name, b]) => [name, b.broker_type])),
    },
  };
  const channels: Channels = {
    webhook: DESTINATIONS.webhook.channel({
      dispatcher: deps.webhooks.dispatcher,
      secrets: signingSecretsOf(deps.config),
      userAgent: WEBHOOK_USER_AGENT,
      urlAllowed: urlAllowedBy(policyOf(deps.config).webhookUrlPatterns),
    }) as Channel<unknown>,
    broker: DESTINATIONS.broker.channel(deps.config.file.brokers ?? {}, deps.brokerConnections, {
      allowPrivateTargets: deps.config.file.allow_private_targets ?? false,
    }) as Channel<unknown>,
  };
  const turns = turnActivities(deps.store);
  return {
    deliverWebhook: activityOf(pipeline, channels.webhook, turns.endTurnOnDelivery),
    publishToBroker: activityOf(pipeline, channels.broker, turns.endTurnOnDelivery),
    // One worker's first attempts in flight at once, over all its batches.
    deliverFirstAttempts: firstAttempts(pipeline, channels, createSlots(FIRST_ATTEMPT_CONCURRENCY)),
    takeTurn: turns.takeTurn,
    endTurn: turns.endTurn,
  };
};
