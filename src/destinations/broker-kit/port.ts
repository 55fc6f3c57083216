import type { SettingsResult } from './settings';
import type { BrokerKeys } from './settings-keys';
import type { ErrorShape } from './publish-error';

/**
 * The publisher port: one module per `broker_type`, registered in `../brokers/registry.ts`. A module
 * decodes a broker's settings (its `conn_details` and `params` after the trigger's keys are
 * merged over them), opens long-lived connections, and publishes one message per attempt,
 * resolving only once the broker confirmed it. Connections are shared and kept by
 * `connections.ts`, which also enforces each attempt's `timeout_secs`.
 */

/** What every message carries, the same bytes a webhook of the same trigger would send. */
export interface OutboundMessage {
  readonly body: string;
  readonly contentType: string;
  /** Stable across retries: receivers deduplicate on it. */
  readonly deliveryId: string;
  /** W3C trace context of the send (tracing on): publishers put it in a header or attribute named `traceparent`. */
  readonly traceparent?: string;
}

/** What the broker said when it took the message (e.g. an SQS message id, a Kafka offset). */
export interface Confirmation {
  readonly brokerMessageId?: string;
}

export interface BrokerConnection<S> {
  publish(settings: S, message: OutboundMessage): Promise<Confirmation>;
  /**
   * True once the connection cannot be used any more (the client saw it go): it is replaced
   * before the next use. A publish the broker refused must not make it true, nor fail other
   * publishes on the connection: one target's bad settings fail only its own messages.
   */
  broken(): boolean;
  close(): Promise<void>;
}

export interface Publisher<S> {
  /** As in the config's `broker_type` (lower case). */
  readonly brokerType: string;
  /** The keys it reads, with what each means: its settings reader reads only these. */
  readonly keys: BrokerKeys;
  /**
   * The settings of one target, or every missing or bad key by path (`conn_details.url`,
   * `params.queue`). Used on the config at start, on a trigger when it is written, and on
   * the rendered values at each attempt.
   */
  settings(connDetails: Readonly<Record<string, string>>, params: Readonly<Record<string, string>>): SettingsResult<S>;
  /**
   * What its client's error means, in our words (`refused it: 404 not found`), read from the
   * codes the client decided, never from the broker's text (publish-error.ts); undefined for an
   * error it does not know.
   */
  describeError?(e: ErrorShape): string | undefined;
  /**
   * True when the error is the destination's refusal of this call for good (an AWS 4xx other than
   * throttling, say): the attempt fails without retries. Absent: every failure is retried.
   */
  refusedForGood?(e: ErrorShape): boolean;
  /** Targets with the same key share one connection (e.g. the AMQP URL; Kafka: brokers and topic). */
  connectionKey(settings: S): string;
  /**
   * Opens a connection. Once `signal` aborts (its attempt gave up), everything opened for it is
   * closed, whether it is still opening, opens later or fails, and it never reconnects on its own
   * (`openOrDestroy` in `client-lifetime.ts` does this for a client with a close call). A failed open leaves nothing open.
   */
  connect(settings: S, signal: AbortSignal): Promise<BrokerConnection<S>>;
}
